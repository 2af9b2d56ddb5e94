/* Yield: one operation: the one unit yields to its scheduler and is resumed
 * (the seed's `wait 0`). The unit counts its own resumptions. */
#include "kit.h"
#include "coroutine.h"

#include <errno.h>
#include <sched.h>

struct yielder {
    int64_t batch, resumed;
};

static int yield_report(struct run *run, const struct yielder *y)
{
    result_set(run, "count", y->resumed);
    run->units = 1;
    return 0;
}

/* ---- pthread: the unit is the thread running the loop; its scheduler is
 * the kernel's --------------------------------------------------------------- */

static int thread_step(struct run *run, void *state)
{
    struct yielder *y = state;
    for (int64_t i = 0; i < y->batch; i++) {
        if (sched_yield() < 0)
            return run_syserr(run, "sched_yield", errno);
        y->resumed++;
    }
    return 0;
}

static int yield_pthread(struct run *run)
{
    struct yielder y = {0};
    if (param_int(run, "batch", 1, &y.batch) < 0 || run_rate(run, thread_step, &y) < 0)
        return -1;
    return yield_report(run, &y);
}

/* ---- coroutine: its scheduler is the caller, which resumes it ----------- */

struct coro_yielder {
    struct coro ctx;   /* first: the body finds its state from its context */
    struct coro caller;
    struct yielder y;
};

static void yielder_main(struct coro *from, struct coro *self)
{
    struct coro_yielder *cy = (struct coro_yielder *)self;
    for (;;) {
        coro_switch(self, from);
        cy->y.resumed++;
    }
}

static int coro_step(struct run *run, void *state)
{
    (void)run;
    struct coro_yielder *cy = state;
    for (int64_t i = 0; i < cy->y.batch; i++)
        coro_switch(&cy->caller, &cy->ctx);
    return 0;
}

static int yield_coroutine(struct run *run)
{
    struct coro_yielder cy = {0};
    struct coro_stacks stack = {0};
    if (param_int(run, "batch", 1, &cy.y.batch) < 0 || coro_stacks_new(run, &stack, 1) < 0)
        return -1;
    coro_init(&cy.ctx, yielder_main, coro_stack_top(&stack, 0));
    coro_switch(&cy.caller, &cy.ctx);   /* to its first yield, before the clocks start */
    int rc = run_rate(run, coro_step, &cy);
    coro_stacks_free(&stack);
    return rc < 0 ? -1 : yield_report(run, &cy.y);
}

const struct mechanism yield_mechanisms[] = {
    {"pthread", yield_pthread},
    {"coroutine", yield_coroutine},
    {NULL, NULL},
};
