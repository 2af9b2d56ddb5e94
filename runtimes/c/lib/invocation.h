/* invoke and invoke-waiting, written once: one operation starts a unit
 * whose body increments a counter, and gets its result, as `mode` says:
 *   await:  start a unit, await it, then the next;
 *   batch:  start a whole batch, then await them all;
 *   forget: start a whole batch, then yield once so that they run (the
 *           seed's call_and_forget + `wait 0`); the run awaits the rest at
 *           its end.
 * A waiting unit yields to its scheduler once before it increments (the
 * seed's `wait 0` inside the proc). The count is kept by the bodies. */
#ifndef CONCBENCH_INVOCATION_H
#define CONCBENCH_INVOCATION_H

#include "kit.h"

int invocation_pthread(struct run *run, bool waits);
int invocation_coroutine(struct run *run, bool waits);

#endif
