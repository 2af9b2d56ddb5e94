/* invoke and invoke-waiting for the mechanisms that start units: see
 * invocation.h. */
#include "invocation.h"
#include "coroutine.h"

#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>

enum mode { AWAIT, BATCH, FORGET };
static const char *const modes[] = {"await", "batch", "forget", NULL};

static int get_params(struct run *run, int64_t *batch, int *mode)
{
    if (param_int(run, "batch", 1, batch) < 0 || param_choice(run, "mode", modes, mode) < 0)
        return -1;
    return 0;
}

/* ---- pthread: a thread per unit; its scheduler is the kernel's ----------- */

struct threads {
    struct run *run;
    bool waits;
    int64_t batch, units;      /* units: threads started, for await_forgotten */
    _Atomic int64_t count;     /* kept by the bodies, which run in parallel */
    pthread_t *batch_tids;     /* batch: the batch's threads, joined at its end */
    pthread_attr_t detached;   /* forget: nobody joins a forgotten thread */
    sem_t finished;            /* forget: posted by each body as its last act */
};

static void body(struct threads *t)
{
    unit_started(t->run);
    if (t->waits)
        sched_yield();
    atomic_fetch_add_explicit(&t->count, 1, memory_order_relaxed);
    unit_finished(t->run);
}

static void *joined_main(void *arg)
{
    body(arg);
    return NULL;
}

/* What remains after the post is the thread's exit, which frees its own
 * stack: the unit has finished its body (and counted so) before it posts. The post cannot fail: the run waits before the semaphore could
 * reach SEM_VALUE_MAX. */
static void *forgotten_main(void *arg)
{
    struct threads *t = arg;
    body(t);
    sem_post(&t->finished);
    return NULL;
}

static int thread_await_step(struct run *run, void *state)
{
    struct threads *t = state;
    for (int64_t i = 0; i < t->batch; i++) {
        pthread_t tid;
        if (thread_start(run, &tid, joined_main, t) < 0)
            return -1;
        t->units++;
        if (thread_join(run, tid) < 0)
            return -1;
    }
    return 0;
}

static int thread_batch_step(struct run *run, void *state)
{
    struct threads *t = state;
    int64_t started = 0;
    while (started < t->batch && thread_start(run, &t->batch_tids[started], joined_main, t) == 0)
        started++;
    t->units += started;
    int rc = started < t->batch ? -1 : 0;
    for (int64_t i = 0; i < started; i++)
        if (thread_join(run, t->batch_tids[i]) < 0)
            rc = -1;
    return rc;
}

static int thread_forget_step(struct run *run, void *state)
{
    struct threads *t = state;
    for (int64_t i = 0; i < t->batch; i++) {
        pthread_t tid;
        int rc = pthread_create(&tid, &t->detached, forgotten_main, t);
        if (rc)
            return run_syserr(run, "pthread_create", rc);
        t->units++;
    }
    sched_yield();   /* the seed's `wait 0`, so that the batch gets to run */
    return 0;
}

/* Every forgotten thread started, also before a failure, has posted once. */
static void await_forgotten(struct threads *t)
{
    for (int64_t i = 0; i < t->units; i++)
        while (sem_wait(&t->finished) < 0 && errno == EINTR)
            ;
}

int invocation_pthread(struct run *run, bool waits)
{
    static int (*const steps[])(struct run *, void *) = {
        [AWAIT] = thread_await_step, [BATCH] = thread_batch_step, [FORGET] = thread_forget_step};
    struct threads t = {.run = run, .waits = waits};
    int mode;
    if (get_params(run, &t.batch, &mode) < 0)
        return -1;
    if (mode == BATCH && !(t.batch_tids = malloc((size_t)t.batch * sizeof *t.batch_tids)))
        return run_syserr(run, "malloc", errno);
    pthread_attr_init(&t.detached);
    pthread_attr_setdetachstate(&t.detached, PTHREAD_CREATE_DETACHED);
    sem_init(&t.finished, 0, 0);
    int rc = run_rate(run, steps[mode], &t);
    if (mode == FORGET)
        await_forgotten(&t);
    sem_destroy(&t.finished);
    pthread_attr_destroy(&t.detached);
    free(t.batch_tids);
    if (rc < 0)
        return -1;
    result_set(run, "count", atomic_load(&t.count));
    return 0;
}

/* ---- coroutine: the caller is the units' scheduler ----------------------- */

struct coro_unit {
    struct coro ctx;   /* first: the body finds its unit from its context */
    struct coro_sched *sched;
    void *stack_top;   /* its stack in the pool */
    bool finished;
};

struct coro_sched {
    struct run *run;
    struct coro caller;        /* the loop's context, to which units yield */
    struct coro_unit *units;   /* one per pooled stack */
    bool waits;
    int64_t batch, count;
};

static void unit_main(struct coro *from, struct coro *self)
{
    (void)from;   /* the caller, which every switch away goes back to */
    struct coro_unit *u = (struct coro_unit *)self;
    unit_started_local(u->sched->run);
    if (u->sched->waits)
        coro_switch(self, &u->sched->caller);
    u->sched->count++;
    u->finished = true;
    unit_finished_local(u->sched->run);
    coro_switch(self, &u->sched->caller);
    __builtin_unreachable();   /* finished: nothing resumes it */
}

/* Creating a unit is preparing its context on its pooled stack. */
static struct coro_unit *unit_create(struct coro_sched *s, int64_t i)
{
    struct coro_unit *u = &s->units[i];
    coro_init(&u->ctx, unit_main, u->stack_top);
    u->finished = false;
    return u;
}

static void unit_await(struct coro_sched *s, struct coro_unit *u)
{
    while (!u->finished)
        coro_switch(&s->caller, &u->ctx);
}

static int coro_await_step(struct run *run, void *state)
{
    (void)run;
    struct coro_sched *s = state;
    for (int64_t i = 0; i < s->batch; i++)
        unit_await(s, unit_create(s, 0));
    return 0;
}

/* The batch is created, as a scheduler's spawn queues units without running
 * them; then each is started (run to its yield, or its end), then each is
 * awaited. With no scheduler but the caller, nothing else would run a
 * forgotten unit, so forget is this too. */
static int coro_batch_step(struct run *run, void *state)
{
    (void)run;
    struct coro_sched *s = state;
    for (int64_t i = 0; i < s->batch; i++)
        unit_create(s, i);
    for (int64_t i = 0; i < s->batch; i++)
        coro_switch(&s->caller, &s->units[i].ctx);
    for (int64_t i = 0; i < s->batch; i++)
        unit_await(s, &s->units[i]);
    return 0;
}

int invocation_coroutine(struct run *run, bool waits)
{
    struct coro_sched s = {.run = run, .waits = waits};
    int mode;
    if (get_params(run, &s.batch, &mode) < 0)
        return -1;
    /* await needs one stack at a time; batch and forget one per unit. */
    int64_t nstacks = mode == AWAIT ? 1 : s.batch;
    struct coro_stacks stacks = {0};
    int rc = -1;
    if (!(s.units = calloc((size_t)nstacks, sizeof *s.units)))
        run_syserr(run, "calloc", errno);
    else if (coro_stacks_new(run, &stacks, (size_t)nstacks) == 0) {
        for (int64_t i = 0; i < nstacks; i++)
            s.units[i] = (struct coro_unit){.sched = &s, .stack_top = coro_stack_top(&stacks, (size_t)i)};
        rc = run_rate(run, mode == AWAIT ? coro_await_step : coro_batch_step, &s);
        coro_stacks_free(&stacks);
    }
    free(s.units);
    if (rc < 0)
        return -1;
    result_set(run, "count", s.count);
    return 0;
}
