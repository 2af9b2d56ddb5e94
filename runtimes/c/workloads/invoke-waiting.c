/* Invoke-waiting: as invoke, but each body yields to its scheduler once
 * before it increments (see lib/invocation.h). */
#include "lib/invocation.h"

static int invoke_waiting_pthread(struct run *run) { return invocation_pthread(run, true); }
static int invoke_waiting_coroutine(struct run *run) { return invocation_coroutine(run, true); }

const struct mechanism invoke_waiting_mechanisms[] = {
    {.name = "pthread", .run = invoke_waiting_pthread},
    {.name = "coroutine", .run = invoke_waiting_coroutine},
    {0},
};
