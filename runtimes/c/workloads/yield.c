/* Yield: one operation: the measured unit yields to its scheduler and is
 * resumed (the seed's `wait 0`). `partners` more units yield in a loop
 * beside it, so that a yield has somebody to switch to. Every unit, and the
 * scheduler where it is code of ours, adds one to a shared turn counter each
 * time it runs; the measured unit counts a yield as switched when the
 * counter moved while it yielded. It counts its own resumptions: the result. */
#include "kit.h"
#include "coroutine.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

struct yield_params {
    int64_t batch, partners;
};

static int get_params(struct run *run, struct yield_params *p)
{
    if (param_int(run, "batch", 1, &p->batch) < 0 || param_int(run, "partners", 0, &p->partners) < 0)
        return -1;
    return 0;
}

/* ---- pthread: the measured unit is the thread running the loop; its
 * scheduler is the kernel's ----------------------------------------------
 *
 * Pinning. With partners, the measured thread and its partners are pinned
 * to one CPU, the one the measured thread is on, for the run (prepare pins,
 * finish restores the old mask, both outside the clocks; the partners
 * inherit the mask as they are created). A sched_yield switches only among
 * the threads on its own CPU's run queue: on this 2-core machine, unpinned,
 * the measured thread and one partner would each sit alone on a core, every
 * yield would return at once having switched nothing, and the turn counter
 * would still move, bumped in parallel from the other core, so `switched`
 * would claim switches that never happened. Measured with the partner
 * forced onto the other CPU: the counter moved during 119,140 of 241,700
 * yields, while the measured thread was switched out 20 times (getrusage);
 * pinned: 57,300 yields, 57,300 switched, 57,306 switches out. Pinned, they
 * share one run queue, as fibers share their one thread and Ruby's threads
 * the GVL: a yield hands the CPU to a partner, the only way the counter can
 * move in between (relaxed atomics are exact here: every bump is a
 * read-modify-write of one object, so the measured thread's bump returns
 * the value right after every other bump since its last). A preemption of the measured
 * thread between two yields would also count, but a time slice is
 * milliseconds and a yield here microseconds. Without partners there is
 * nobody to switch to and the thread is left unpinned, as in the seed: its
 * sched_yield returns at once and `switched` says so (0). */

struct pinned {
    cpu_set_t saved;   /* the mask before the run */
    bool pinned;
};

static int thread_prepare(struct run *run)
{
    struct yield_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct pinned *pin = calloc(1, sizeof *pin);
    if (!pin)
        return run_syserr(run, "calloc", errno);
    run->state = pin;
    if (p.partners == 0)
        return 0;
    int cpu = sched_getcpu();
    if (cpu < 0)
        return run_syserr(run, "sched_getcpu", errno);
    if (sched_getaffinity(0, sizeof pin->saved, &pin->saved) < 0)
        return run_syserr(run, "sched_getaffinity", errno);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0)
        return run_syserr(run, "sched_setaffinity", errno);
    pin->pinned = true;
    return 0;
}

static int thread_finish(struct run *run)
{
    struct pinned *pin = run->state;
    int rc = 0;
    if (pin && pin->pinned && sched_setaffinity(0, sizeof pin->saved, &pin->saved) < 0)
        rc = run_syserr(run, "sched_setaffinity (restoring the mask)", errno);
    free(pin);
    run->state = NULL;
    return rc;
}

struct thread_yield {
    struct run *run;
    int64_t batch;
    _Atomic int64_t turn;
    _Atomic bool stop;               /* partners: end the loop */
    int64_t seen;                    /* measured: the counter after its last bump */
    int64_t resumed, switched;       /* measured: its own counts */
};

static void *partner_main(void *arg)
{
    struct thread_yield *y = arg;
    unit_started(y->run);
    while (!atomic_load_explicit(&y->stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&y->turn, 1, memory_order_relaxed);
        sched_yield();
    }
    unit_finished(y->run);
    return NULL;
}

static int thread_step(struct run *run, void *state)
{
    struct thread_yield *y = state;
    for (int64_t i = 0; i < y->batch; i++) {
        if (sched_yield() < 0)
            return run_syserr(run, "sched_yield", errno);
        int64_t now = atomic_fetch_add_explicit(&y->turn, 1, memory_order_relaxed);
        if (now != y->seen)
            y->switched++;
        y->seen = now + 1;
        y->resumed++;
    }
    return 0;
}

static int yield_pthread(struct run *run)
{
    struct yield_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct thread_yield y = {.run = run, .batch = p.batch};
    pthread_t *tids = calloc((size_t)p.partners + 1, sizeof *tids);
    if (!tids)
        return run_syserr(run, "calloc", errno);
    int64_t started = 0;
    while (started < p.partners && thread_start(run, &tids[started], partner_main, &y) == 0)
        started++;
    int rc = -1;
    if (started == p.partners) {
        unit_started(run);   /* the measured unit: this thread, for its loop */
        y.seen = atomic_fetch_add_explicit(&y.turn, 1, memory_order_relaxed) + 1;
        rc = run_rate(run, thread_step, &y);
        unit_finished(run);
    }
    /* Still timed: the partners are stopped and joined. */
    atomic_store_explicit(&y.stop, true, memory_order_relaxed);
    for (int64_t i = 0; i < started; i++)
        thread_join(run, tids[i]);
    free(tids);
    if (rc < 0 || run_failed(run))
        return -1;
    result_set(run, "count", y.resumed);
    evidence_set(run, "switched", y.switched);
    return 0;
}

/* ---- coroutine: the scheduler is the caller, which resumes the measured
 * coroutine and then each partner, once per operation ------------------- */

struct coro_yield;

struct yield_unit {
    struct coro ctx;   /* first: the body finds its unit from its context */
    struct coro_yield *s;
};

struct coro_yield {
    struct run *run;
    struct coro sched;               /* the caller's context */
    struct yield_unit *units;        /* [0]: the measured one; then the partners */
    int64_t batch, nunits;
    int64_t turn;                    /* one thread: a plain counter */
    int64_t resumed, switched;       /* the measured unit's counts */
    bool stop;
};

static void measured_main(struct coro *from, struct coro *self)
{
    (void)from;   /* the scheduler, which every switch away goes back to */
    struct coro_yield *s = ((struct yield_unit *)self)->s;
    unit_started_local(s->run);
    for (;;) {
        int64_t seen = ++s->turn;
        coro_switch(self, &s->sched);
        if (s->stop)
            break;
        if (s->turn != seen)
            s->switched++;
        s->resumed++;
    }
    unit_finished_local(s->run);
    coro_switch(self, &s->sched);
    __builtin_unreachable();   /* finished: nothing resumes it */
}

static void partner_coro_main(struct coro *from, struct coro *self)
{
    (void)from;
    struct coro_yield *s = ((struct yield_unit *)self)->s;
    unit_started_local(s->run);
    do {
        s->turn++;
        coro_switch(self, &s->sched);
    } while (!s->stop);
    unit_finished_local(s->run);
    coro_switch(self, &s->sched);
    __builtin_unreachable();
}

/* The scheduler's round: every unit in turn, the scheduler counting a turn
 * of its own each time one hands it back the CPU. */
static void coro_round(struct coro_yield *s)
{
    for (int64_t u = 0; u < s->nunits; u++) {
        coro_switch(&s->sched, &s->units[u].ctx);
        s->turn++;
    }
}

static int coro_step(struct run *run, void *state)
{
    (void)run;
    struct coro_yield *s = state;
    for (int64_t i = 0; i < s->batch; i++)
        coro_round(s);
    return 0;
}

static int yield_coroutine(struct run *run)
{
    struct yield_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct coro_yield s = {.run = run, .batch = p.batch, .nunits = 1 + p.partners};
    struct coro_stacks stacks = {0};
    if (!(s.units = calloc((size_t)s.nunits, sizeof *s.units)))
        return run_syserr(run, "calloc", errno);
    if (coro_stacks_new(run, &stacks, (size_t)s.nunits) < 0) {
        free(s.units);
        return -1;
    }
    for (int64_t u = 0; u < s.nunits; u++) {
        s.units[u].s = &s;
        coro_init(&s.units[u].ctx, u == 0 ? measured_main : partner_coro_main,
                  coro_stack_top(&stacks, (size_t)u));
    }
    coro_round(&s);   /* each to its first yield, before the clocks start */
    int rc = run_rate(run, coro_step, &s);
    /* Still timed: every unit is resumed once more, to end. */
    s.stop = true;
    coro_round(&s);
    coro_stacks_free(&stacks);
    free(s.units);
    if (rc < 0)
        return -1;
    result_set(run, "count", s.resumed);
    evidence_set(run, "switched", s.switched);
    return 0;
}

const struct mechanism yield_mechanisms[] = {
    {.name = "pthread", .run = yield_pthread, .prepare = thread_prepare, .finish = thread_finish},
    {.name = "coroutine", .run = yield_coroutine},
    {0},
};
