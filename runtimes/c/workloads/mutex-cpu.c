/* Mutex, CPU-bound: per group one mutex and one counter; each of `workers`
 * threads, `iterations` times, locks, matches /foo(.+)$/ against
 * "foobar" * 100, adds the capture's length (597) and unlocks.
 *
 * The regex engine is PCRE2 with its JIT, what a C program that matches in a
 * hot loop uses: glibc's POSIX regexec takes ~60 us for this capture, so the
 * cell would measure glibc's engine instead of the lock. A compiled pattern
 * is read-only and shared; each worker has its own match data. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "kit.h"

#include <errno.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#define REPEATS 100

struct cpu_group {
    pthread_mutex_t lock;
    int64_t sum;           /* guarded by lock */
};

struct cpu_worker {
    struct run *run;
    struct cpu_group *group;
    const pcre2_code *pattern;
    const char *subject;
    int64_t iterations;
    pthread_t tid;
    bool started;
};

static void *cpu_worker_main(void *arg)
{
    struct cpu_worker *w = arg;
    struct cpu_group *g = w->group;
    pcre2_match_data *match = pcre2_match_data_create_from_pattern(w->pattern, NULL);
    if (!match) {
        run_fail(w->run, "pcre2_match_data_create_from_pattern: out of memory");
        return NULL;
    }
    const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match);
    size_t length = strlen(w->subject);
    for (int64_t i = 0; i < w->iterations; i++) {
        pthread_mutex_lock(&g->lock);
        int rc = pcre2_match(w->pattern, (PCRE2_SPTR)w->subject, length, 0, 0, match, NULL);
        if (rc > 1)
            g->sum += (int64_t)(ovector[3] - ovector[2]);
        pthread_mutex_unlock(&g->lock);
        if (rc <= 1) {
            run_fail(w->run, "pcre2_match: %s", rc == PCRE2_ERROR_NOMATCH ? "no match" : "failed");
            break;
        }
    }
    pcre2_match_data_free(match);
    return NULL;
}

static pcre2_code *pattern_new(struct run *run)
{
    int error;
    PCRE2_SIZE offset;
    pcre2_code *pattern = pcre2_compile((PCRE2_SPTR) "foo(.+)$", PCRE2_ZERO_TERMINATED, 0,
                                        &error, &offset, NULL);
    if (!pattern) {
        run_fail(run, "pcre2_compile: error %d", error);
        return NULL;
    }
    if (pcre2_jit_compile(pattern, PCRE2_JIT_COMPLETE) != 0) {
        pcre2_code_free(pattern);
        run_fail(run, "pcre2_jit_compile failed");
        return NULL;
    }
    return pattern;
}

static int mutex_cpu_pthread(struct run *run)
{
    int64_t groups, workers, iterations;
    if (param_int(run, "groups", 1, &groups) < 0 || param_int(run, "workers", 1, &workers) < 0 ||
        param_int(run, "iterations", 1, &iterations) < 0)
        return -1;
    char subject[REPEATS * 6 + 1];
    for (int i = 0; i < REPEATS; i++)
        memcpy(subject + 6 * i, "foobar", 6);
    subject[REPEATS * 6] = '\0';

    pcre2_code *pattern = pattern_new(run);
    struct cpu_group *gs = calloc((size_t)groups, sizeof *gs);
    struct cpu_worker *ws = calloc((size_t)(groups * workers), sizeof *ws);
    if (!gs || !ws)
        run_syserr(run, "calloc", errno);
    else if (pattern) {
        for (int64_t g = 0; g < groups; g++)
            pthread_mutex_init(&gs[g].lock, NULL);
        for (int64_t i = 0; i < groups * workers; i++) {
            ws[i] = (struct cpu_worker){.run = run, .group = &gs[i / workers], .pattern = pattern,
                                        .subject = subject, .iterations = iterations};
            if (!(ws[i].started = thread_start(run, &ws[i].tid, cpu_worker_main, &ws[i]) == 0))
                break;
        }
    }
    int64_t sum = 0;
    for (int64_t i = 0; ws && i < groups * workers; i++)
        if (ws[i].started)
            thread_join(run, ws[i].tid);
    for (int64_t g = 0; gs && g < groups; g++) {
        sum += gs[g].sum;
        pthread_mutex_destroy(&gs[g].lock);
    }
    pcre2_code_free(pattern);
    free(gs);
    free(ws);
    if (run_failed(run))
        return -1;
    result_set(run, "sum", sum);
    run->units = groups * workers;
    return 0;
}

const struct mechanism mutex_cpu_mechanisms[] = {
    {"pthread", mutex_cpu_pthread},
    {NULL, NULL},
};
