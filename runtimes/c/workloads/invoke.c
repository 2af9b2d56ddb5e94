/* Invoke: mere invocation (see lib/invocation.h), and its baseline. */
#include "lib/invocation.h"

/* The baseline, the seed's proc.call: the body called in place, the same
 * call in every mode. The pointer is volatile, so the compiler must load it
 * and call through it each time: it can neither inline the body nor fold
 * the loop into one addition. */
static void increment(int64_t *count)
{
    ++*count;
}

static void (*volatile plain_call)(int64_t *count) = increment;

struct plain {
    int64_t batch, count;
};

static int none_step(struct run *run, void *state)
{
    (void)run;
    struct plain *p = state;
    for (int64_t i = 0; i < p->batch; i++)
        plain_call(&p->count);
    return 0;
}

static int invoke_none(struct run *run)
{
    struct plain p = {0};
    if (param_int(run, "batch", 1, &p.batch) < 0 || run_rate(run, none_step, &p) < 0)
        return -1;
    result_set(run, "count", p.count);
    return 0;   /* no unit started: units = peak_live = 0 */
}

static int invoke_pthread(struct run *run) { return invocation_pthread(run, false); }
static int invoke_coroutine(struct run *run) { return invocation_coroutine(run, false); }

const struct mechanism invoke_mechanisms[] = {
    {.name = "none", .run = invoke_none},
    {.name = "pthread", .run = invoke_pthread},
    {.name = "coroutine", .run = invoke_coroutine},
    {0},
};
