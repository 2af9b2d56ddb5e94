/* Queue: per group one FIFO holding at most `capacity` items (0: no
 * bound); `producers` threads push 1..items; once all of them are done, one
 * stop token per consumer is pushed (by the caller, which awaits the
 * producers); `consumers` threads pop until they get a stop token, counting
 * and summing. A push into a full queue waits on `nonfull`, a pop from an
 * empty one on `nonempty`.
 *
 * blocked: pushes that found the queue full and pops that found it empty,
 * each counted once however often it then waited. Every thread counts its
 * own, and the caller its stop tokens'; they are summed after the joins. */
#include "kit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STOP 0   /* pushed values are >= 1 */

/* A FIFO: a ring buffer that doubles when full, up to the bound. */
struct queue {
    pthread_mutex_t lock;
    pthread_cond_t nonempty, nonfull;
    uint64_t *items;
    size_t cap, head, len;   /* cap is a power of two */
    size_t capacity;         /* the most items it holds; 0: no bound */
    bool aborted;            /* a failure elsewhere: everybody gives up */
};

static int queue_init(struct run *run, struct queue *q, size_t capacity)
{
    q->cap = 64;
    q->capacity = capacity;
    if (!(q->items = malloc(q->cap * sizeof *q->items)))
        return run_syserr(run, "malloc", errno);
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->nonempty, NULL);
    pthread_cond_init(&q->nonfull, NULL);
    return 0;
}

static void queue_destroy(struct queue *q)
{
    pthread_cond_destroy(&q->nonfull);
    pthread_cond_destroy(&q->nonempty);
    pthread_mutex_destroy(&q->lock);
    free(q->items);
}

/* Called with the lock held. Unwraps the ring into a buffer twice as big. */
static int queue_grow(struct run *run, struct queue *q)
{
    uint64_t *items = malloc(2 * q->cap * sizeof *items);
    if (!items)
        return run_syserr(run, "malloc", errno);
    size_t first = q->cap - q->head;   /* the part from head to the buffer's end */
    memcpy(items, q->items + q->head, first * sizeof *items);
    memcpy(items + first, q->items, q->head * sizeof *items);
    free(q->items);
    q->items = items;
    q->head = 0;
    q->cap *= 2;
    return 0;
}

/* -1 on failure, or if the queue was aborted while the push waited. */
static int queue_push(struct run *run, struct queue *q, uint64_t value, int64_t *blocked)
{
    pthread_mutex_lock(&q->lock);
    if (q->capacity && q->len >= q->capacity && !q->aborted) {
        ++*blocked;
        while (q->len >= q->capacity && !q->aborted)
            pthread_cond_wait(&q->nonfull, &q->lock);
    }
    int rc = q->aborted ? -1 : q->len == q->cap ? queue_grow(run, q) : 0;
    if (rc == 0) {
        q->items[(q->head + q->len++) & (q->cap - 1)] = value;
        pthread_cond_signal(&q->nonempty);
    }
    pthread_mutex_unlock(&q->lock);
    return rc;
}

/* Returns the next value, or STOP if the queue was aborted. */
static uint64_t queue_pop(struct queue *q, int64_t *blocked)
{
    pthread_mutex_lock(&q->lock);
    if (q->len == 0 && !q->aborted) {
        ++*blocked;
        while (q->len == 0 && !q->aborted)
            pthread_cond_wait(&q->nonempty, &q->lock);
    }
    uint64_t value = STOP;
    if (q->len > 0) {
        value = q->items[q->head];
        q->head = (q->head + 1) & (q->cap - 1);
        q->len--;
        if (q->capacity)
            pthread_cond_signal(&q->nonfull);
    }
    pthread_mutex_unlock(&q->lock);
    return value;
}

static void queue_abort(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->aborted = true;
    pthread_cond_broadcast(&q->nonempty);
    pthread_cond_broadcast(&q->nonfull);
    pthread_mutex_unlock(&q->lock);
}

struct queue_thread {
    struct run *run;
    struct queue *queue;
    int64_t items;            /* producer: pushes 1..items */
    uint64_t count, sum;      /* consumer: what it popped */
    int64_t blocked;          /* its pushes or pops that had to wait */
    pthread_t tid;
    bool started;
};

static void *producer_main(void *arg)
{
    struct queue_thread *t = arg;
    unit_started(t->run);
    int64_t blocked = 0;
    for (int64_t v = 1; v <= t->items; v++) {
        if (queue_push(t->run, t->queue, (uint64_t)v, &blocked) < 0) {
            queue_abort(t->queue);
            break;
        }
    }
    t->blocked = blocked;
    unit_finished(t->run);
    return NULL;
}

static void *consumer_main(void *arg)
{
    struct queue_thread *t = arg;
    unit_started(t->run);
    int64_t blocked = 0;
    for (uint64_t v; (v = queue_pop(t->queue, &blocked)) != STOP;) {
        t->count++;
        t->sum += v;
    }
    t->blocked = blocked;
    unit_finished(t->run);
    return NULL;
}

struct queue_run {
    struct run *run;
    int64_t groups, producers, consumers, items, capacity;
    int64_t blocked;          /* the caller's stop tokens that had to wait */
    struct queue *queues;
    struct queue_thread *producer, *consumer;   /* [group * per_group + i] */
};

static int start_all(struct queue_run *q)
{
    for (int64_t g = 0; g < q->groups; g++) {
        for (int64_t i = 0; i < q->consumers; i++) {
            struct queue_thread *t = &q->consumer[g * q->consumers + i];
            *t = (struct queue_thread){.run = q->run, .queue = &q->queues[g]};
            if (!(t->started = thread_start(q->run, &t->tid, consumer_main, t) == 0))
                return -1;
        }
        for (int64_t i = 0; i < q->producers; i++) {
            struct queue_thread *t = &q->producer[g * q->producers + i];
            *t = (struct queue_thread){.run = q->run, .queue = &q->queues[g], .items = q->items};
            if (!(t->started = thread_start(q->run, &t->tid, producer_main, t) == 0))
                return -1;
        }
    }
    return 0;
}

/* Per group: wait for its producers, then tell each consumer to stop. */
static void stop_all(struct queue_run *q)
{
    for (int64_t g = 0; g < q->groups; g++) {
        for (int64_t i = 0; i < q->producers; i++) {
            struct queue_thread *t = &q->producer[g * q->producers + i];
            if (t->started)
                thread_join(q->run, t->tid);
            q->blocked += t->blocked;
        }
        for (int64_t i = 0; i < q->consumers; i++) {
            if (queue_push(q->run, &q->queues[g], STOP, &q->blocked) < 0) {
                queue_abort(&q->queues[g]);
                break;
            }
        }
    }
}

static void join_consumers(struct queue_run *q, uint64_t *count, uint64_t *sum)
{
    for (int64_t i = 0; i < q->groups * q->consumers; i++) {
        struct queue_thread *t = &q->consumer[i];
        if (t->started)
            thread_join(q->run, t->tid);
        *count += t->count;
        *sum += t->sum;
        q->blocked += t->blocked;
    }
}

static int queue_pthread(struct run *run)
{
    struct queue_run q = {.run = run};
    if (param_int(run, "groups", 1, &q.groups) < 0 || param_int(run, "producers", 1, &q.producers) < 0 ||
        param_int(run, "consumers", 1, &q.consumers) < 0 || param_int(run, "items", 1, &q.items) < 0 ||
        param_int(run, "capacity", 0, &q.capacity) < 0)
        return -1;
    q.queues = calloc((size_t)q.groups, sizeof *q.queues);
    q.producer = calloc((size_t)(q.groups * q.producers), sizeof *q.producer);
    q.consumer = calloc((size_t)(q.groups * q.consumers), sizeof *q.consumer);
    int64_t ready = 0;   /* queues initialised */
    if (!q.queues || !q.producer || !q.consumer) {
        run_syserr(run, "calloc", errno);
        goto out;
    }
    while (ready < q.groups && queue_init(run, &q.queues[ready], (size_t)q.capacity) == 0)
        ready++;
    if (ready < q.groups)
        goto out;
    /* If a thread cannot start, the queues are aborted so that every thread
     * already running ends; it is joined all the same. */
    if (start_all(&q) < 0)
        for (int64_t g = 0; g < q.groups; g++)
            queue_abort(&q.queues[g]);
    stop_all(&q);
    uint64_t count = 0, sum = 0;
    join_consumers(&q, &count, &sum);
    if (!run_failed(run)) {
        result_set(run, "count", (int64_t)count);
        result_set(run, "sum", (int64_t)sum);
        evidence_set(run, "blocked", q.blocked);
    }
out:
    for (int64_t g = 0; g < ready; g++)
        queue_destroy(&q.queues[g]);
    free(q.queues);
    free(q.producer);
    free(q.consumer);
    return run_failed(run) ? -1 : 0;
}

const struct mechanism queue_mechanisms[] = {
    {.name = "pthread", .run = queue_pthread},
    {0},
};
