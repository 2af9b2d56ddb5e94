/* The probes runtime.toml's `requires` run (concbench-c --probe-...): each
 * returns the exit status, 0 if this machine can run the mechanism. Declared
 * apart from uring.h and coroutine.h, so that kit.c, which only dispatches
 * them, does not include liburing. */
#ifndef CONCBENCH_PROBES_H
#define CONCBENCH_PROBES_H

int uring_probe(void);   /* uring.c: this kernel lets the kit make a ring */
int coro_probe(void);    /* coroutine.c: a round trip of the hand-written switch works */

#endif
