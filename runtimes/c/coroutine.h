/* Minimal stackful coroutines, switched by hand: a switch pushes the
 * callee-saved registers on the running stack, saves its stack pointer,
 * loads the other's and pops its registers. No system call (glibc's
 * swapcontext makes one per switch, for the signal mask), no scheduler: the
 * floor of a user-space context switch, as Ruby's coroutine/amd64/Context.S
 * and Boost.Context's fcontext. x86-64 System V only: elsewhere the probe
 * fails, so the harness shows the mechanism as unavailable, and
 * coro_stacks_new() refuses. */
#ifndef CONCBENCH_COROUTINE_H
#define CONCBENCH_COROUTINE_H

#include "kit.h"

/* A suspended context: where its registers were pushed. */
struct coro {
    void **sp;
};

/* The first switch into a coroutine calls start(from, self), `from` being
 * the context that switched. start never returns: its last act is a switch
 * away that nothing resumes. */
typedef void (*coro_start)(struct coro *from, struct coro *self);

/* Prepares `c` to run start on the stack that ends at `top` (16-byte
 * aligned): creating a coroutine costs no more than that. */
void coro_init(struct coro *c, coro_start start, void *top);

/* Suspends the running code into `from` and resumes `to`; returns when
 * something switches back to `from`. */
void coro_switch(struct coro *from, struct coro *to);

/* Stacks made once and reused, as a fiber pool does. Each has a guard page
 * beneath it, so an overflow faults instead of corrupting its neighbour. */
struct coro_stacks {
    char *base;
    size_t count;
};

int coro_stacks_new(struct run *run, struct coro_stacks *stacks, size_t count);
void *coro_stack_top(const struct coro_stacks *stacks, size_t i);
void coro_stacks_free(struct coro_stacks *stacks);

#endif
