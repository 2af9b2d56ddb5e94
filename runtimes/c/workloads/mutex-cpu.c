/* Mutex, CPU-bound: per group one mutex and one counter; each of `workers`
 * threads, `iterations` times, its iteration i counting from 0, writes the
 * subject "foobar" * 100 followed by i in decimal, locks, reads the group's
 * counter, matches /foo(.+)$/ against the subject, writes back the counter
 * read plus the capture's length (597 plus i's digits) and unlocks. The
 * read and the write-back are apart, so without the lock updates would be
 * lost and the sum come out short. Each worker writes its subjects into a
 * buffer of its own on its stack, the prefix once as it starts and i's
 * digits after it in each iteration, before taking the lock.
 *
 * The regex engine is PCRE2 with its JIT, what a C program that matches in a
 * hot loop uses: glibc's POSIX regexec takes ~60 us for this capture, so the
 * cell would measure glibc's engine instead of the lock. The pattern is
 * compiled and JIT-compiled before the clocks (prepare), with each worker's
 * match data; the compiled pattern is read-only and shared.
 *
 * contended: acquisitions whose pthread_mutex_trylock failed (the lock was
 * held), each then taken with pthread_mutex_lock. Each worker counts its own;
 * they are summed after the join. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "kit.h"

#include <errno.h>
#include <inttypes.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX (100 * 6)   /* "foobar" * 100 */
#define DIGITS 21          /* an int64_t's digits and the terminating NUL */

struct cpu_group {
    pthread_mutex_t lock;
    int64_t counter;       /* guarded by lock */
};

struct cpu_worker {
    struct run *run;
    struct cpu_group *group;
    const pcre2_code *pattern;
    pcre2_match_data *match;   /* its own: a match writes into it */
    int64_t iterations;
    int64_t contended;         /* counted by the worker, read after the join */
    pthread_t tid;
    bool started;
};

/* Made before the clocks, freed after them. */
struct cpu_state {
    int64_t groups, workers, iterations;
    pcre2_code *pattern;
    struct cpu_group *gs;
    struct cpu_worker *ws;
    int64_t locks;   /* mutexes initialised */
};

static void *cpu_worker_main(void *arg)
{
    struct cpu_worker *w = arg;
    unit_started(w->run);
    /* The counter is read before the match and written after it through a
     * volatile access, so the compiler can neither fuse the two into one
     * addition nor move them next to each other: the window in which an
     * unlocked update would be lost stays as wide as the match. */
    volatile int64_t *counter = &w->group->counter;
    pthread_mutex_t *lock = &w->group->lock;
    const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(w->match);
    char subject[PREFIX + DIGITS];
    for (int r = 0; r < PREFIX; r += 6)
        memcpy(subject + r, "foobar", 6);
    int64_t contended = 0;
    for (int64_t i = 0; i < w->iterations; i++) {
        size_t length = PREFIX + (size_t)snprintf(subject + PREFIX, DIGITS, "%" PRId64, i);
        if (pthread_mutex_trylock(lock) != 0) {   /* EBUSY: held by another */
            contended++;
            pthread_mutex_lock(lock);
        }
        int64_t seen = *counter;
        int rc = pcre2_match(w->pattern, (PCRE2_SPTR)subject, length, 0, 0, w->match, NULL);
        if (rc > 1)
            *counter = seen + (int64_t)(ovector[3] - ovector[2]);
        pthread_mutex_unlock(lock);
        if (rc <= 1) {
            run_fail(w->run, "pcre2_match: %s", rc == PCRE2_ERROR_NOMATCH ? "no match" : "failed");
            break;
        }
    }
    w->contended = contended;
    unit_finished(w->run);
    return NULL;
}

static int cpu_finish(struct run *run)
{
    struct cpu_state *st = run->state;
    if (!st)
        return 0;
    for (int64_t i = 0; st->ws && i < st->groups * st->workers; i++)
        pcre2_match_data_free(st->ws[i].match);   /* NULL is a no-op */
    for (int64_t g = 0; g < st->locks; g++)
        pthread_mutex_destroy(&st->gs[g].lock);
    pcre2_code_free(st->pattern);
    free(st->gs);
    free(st->ws);
    free(st);
    run->state = NULL;
    return 0;
}

static int pattern_new(struct run *run, struct cpu_state *st)
{
    int error;
    PCRE2_SIZE offset;
    st->pattern = pcre2_compile((PCRE2_SPTR) "foo(.+)$", PCRE2_ZERO_TERMINATED, 0, &error, &offset,
                                NULL);
    if (!st->pattern)
        return run_fail(run, "pcre2_compile: error %d", error);
    if (pcre2_jit_compile(st->pattern, PCRE2_JIT_COMPLETE) != 0)
        return run_fail(run, "pcre2_jit_compile failed");
    return 0;
}

/* The pattern, the groups and each worker's match data, before the clocks. */
static int cpu_prepare(struct run *run)
{
    struct cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return run_syserr(run, "calloc", errno);
    run->state = st;
    if (param_int(run, "groups", 1, &st->groups) < 0 || param_int(run, "workers", 1, &st->workers) < 0 ||
        param_int(run, "iterations", 1, &st->iterations) < 0 || pattern_new(run, st) < 0)
        goto fail;
    int64_t nworkers = st->groups * st->workers;
    st->gs = calloc((size_t)st->groups, sizeof *st->gs);
    st->ws = calloc((size_t)nworkers, sizeof *st->ws);
    if (!st->gs || !st->ws) {
        run_syserr(run, "calloc", errno);
        goto fail;
    }
    for (; st->locks < st->groups; st->locks++)
        pthread_mutex_init(&st->gs[st->locks].lock, NULL);
    for (int64_t i = 0; i < nworkers; i++) {
        st->ws[i] = (struct cpu_worker){.run = run, .group = &st->gs[i / st->workers],
                                        .pattern = st->pattern, .iterations = st->iterations};
        if (!(st->ws[i].match = pcre2_match_data_create_from_pattern(st->pattern, NULL))) {
            run_fail(run, "pcre2_match_data_create_from_pattern: out of memory");
            goto fail;
        }
    }
    return 0;
fail:
    cpu_finish(run);
    return -1;
}

static int mutex_cpu_pthread(struct run *run)
{
    struct cpu_state *st = run->state;
    int64_t nworkers = st->groups * st->workers;
    for (int64_t i = 0; i < nworkers; i++)
        if (!(st->ws[i].started = thread_start(run, &st->ws[i].tid, cpu_worker_main, &st->ws[i]) == 0))
            break;
    int64_t sum = 0, contended = 0;
    for (int64_t i = 0; i < nworkers && st->ws[i].started; i++) {
        thread_join(run, st->ws[i].tid);
        contended += st->ws[i].contended;
    }
    for (int64_t g = 0; g < st->groups; g++)
        sum += st->gs[g].counter;
    if (run_failed(run))
        return -1;
    result_set(run, "sum", sum);
    evidence_set(run, "contended", contended);
    return 0;
}

const struct mechanism mutex_cpu_mechanisms[] = {
    {.name = "pthread", .run = mutex_cpu_pthread, .prepare = cpu_prepare, .finish = cpu_finish},
    {0},
};
