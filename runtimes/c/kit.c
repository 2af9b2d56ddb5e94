/* The concbench C kit's protocol: reads one request (JSON) on stdin, runs
 * the mechanism warmup + runs times, prints one response line (JSON) on
 * stdout (docs/protocol.md). Its one argument, the runtime's option, is the
 * test hook --slowdown=PCT (clocks_stop()). The API workloads use is in util.c,
 * io_uring's helpers in uring.c; the registry of workloads is kit.h's; main()
 * is main.c's. The C++ kit (runtimes/cpp) links this file and util.c too,
 * compiled with its own registry and flags, and names itself in kit_main(). */
#include "kit.h"
#include "build_flags.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The runtime this kit answers for (kit_main()'s argument). */
static const char *runtime_name = "c";

/* Prints a refusal as the response and exits 1. */
static void respond_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

struct workload {
    const char *name;
    const struct mechanism *mechanisms;
};

/* The dispatch table: every workload file's table, from the registry that
 * kit.h declares. */
static const struct workload workloads[] = {
#define WORKLOAD(id, table) {id, table},
#include "workloads.def"
#undef WORKLOAD
};

/* Clock readings at one end of a timed region; at its stop, also how long
 * the region had lasted before the test hook's spin. */
struct clocks {
    struct timespec wall;
    struct rusage cpu;
    int64_t unstretched_ns;
};

struct rate {
    int64_t batch;
    double seconds;
    struct clocks start;   /* recorded by rate_start() */
    bool started;
    int64_t deadline;      /* ns on the monotonic clock */
    int64_t steps;         /* batches run */
};

static int64_t ts_ns(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The test hook --slowdown=PCT (docs/protocol.md, "A known slowdown"): the
 * percentage by which every run is stretched; 0 without the option. */
static double slowdown;

/* Around a timed region the wall clock is read innermost. A failing clock
 * leaves nothing to report: the trial ends. */
static void clocks_start(struct clocks *c)
{
    if (getrusage(RUSAGE_SELF, &c->cpu) < 0 || clock_gettime(CLOCK_MONOTONIC, &c->wall) < 0)
        respond_error("getrusage/clock_gettime: %s", strerror(errno));
}

/* Ends the timed region begun at `start`, every run's (a rate workload's
 * whole loop, the wait for what is outstanding included): with the test
 * hook, it busy-spins on the monotonic clock until the region has lasted
 * (1 + slowdown/100) times what it had when this was called, whatever ran
 * in it. Nothing of the run is left to overlap the spin, and its last
 * reading is the region's end, so that nothing follows it inside the
 * region. A spin rather than a sleep, which would overshoot by the timer's
 * slack. */
static void clocks_stop(struct clocks *c, struct timespec start)
{
    if (clock_gettime(CLOCK_MONOTONIC, &c->wall) < 0)
        respond_error("clock_gettime: %s", strerror(errno));
    c->unstretched_ns = ts_ns(c->wall) - ts_ns(start);
    if (slowdown > 0) {
        int64_t until = ts_ns(start) + (int64_t)(c->unstretched_ns * (1 + slowdown / 100));
        while (ts_ns(c->wall) < until)
            clock_gettime(CLOCK_MONOTONIC, &c->wall);   /* cannot fail: it just worked */
    }
    if (getrusage(RUSAGE_SELF, &c->cpu) < 0)
        respond_error("getrusage: %s", strerror(errno));
}

static int64_t tv_ns(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

int rate_start(struct run *run)
{
    struct rate *r = run->rate;
    if (!r)
        return run_fail(run, "rate_start: not a rate workload");
    if (r->started)
        return run_fail(run, "rate_start: called twice in one run");
    r->started = true;
    clocks_start(&r->start);
    r->deadline = ts_ns(r->start.wall) + (int64_t)(r->seconds * 1e9);
    return 0;
}

bool rate_next(struct run *run)
{
    struct rate *r = run->rate;
    r->steps++;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);   /* cannot fail: it worked in rate_start */
    return ts_ns(now) < r->deadline;
}

int run_rate(struct run *run, int (*step)(struct run *run, void *state), void *state)
{
    if (rate_start(run) < 0)
        return -1;
    do {
        if (step(run, state) < 0)
            return -1;
    } while (rate_next(run));
    return 0;
}

/* ---- the protocol ------------------------------------------------------ */

static void respond_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "concbench-%s: %s\n", runtime_name, msg);
    json_t *resp = json_pack("{s:b, s:s}", "ok", 0, "error", msg);
    char *line = resp ? json_dumps(resp, JSON_COMPACT) : NULL;
    printf("%s\n", line ? line : "{\"ok\":false,\"error\":\"out of memory\"}");
    fflush(stdout);
    exit(1);
}

static const struct mechanism *lookup(const char *workload, const char *mechanism)
{
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        if (strcmp(workloads[i].name, workload) != 0)
            continue;
        for (const struct mechanism *m = workloads[i].mechanisms; m->name; m++)
            if (strcmp(m->name, mechanism) == 0)
                return m;
        respond_error("workload %s has no mechanism %s in the %s runtime", workload, mechanism, runtime_name);
    }
    respond_error("unknown workload %s", workload);
}

/* A failed run ends the trial with its error. */
static void check_run(struct run *run, int rc)
{
    if (rc != 0 || run->failed)
        respond_error("%s", run->failed ? run->error : "mechanism failed without saying why");
}

/* The units the run started and the most alive at once: one kind of
 * counter or the other was used (kit.h). */
static int64_t units_started(struct run *run)
{
    return atomic_load(&run->started) + run->started_local;
}

static int64_t units_peak(struct run *run)
{
    int64_t peak = atomic_load(&run->peak);
    return peak > run->peak_local ? peak : run->peak_local;
}

/* The run's entry in the response, timed from t0 to t1. */
static json_t *sample_new(struct run *run, bool warmup, const struct clocks *t0, const struct clocks *t1)
{
    json_t *result = json_object();
    for (int i = 0; i < run->nresults; i++)
        json_object_set_new(result, run->result_name[i], json_integer(run->result_value[i]));
    json_t *sample = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:o}",
                               "warmup", warmup,
                               "wall_ns", (json_int_t)(ts_ns(t1->wall) - ts_ns(t0->wall)),
                               "user_ns", (json_int_t)(tv_ns(t1->cpu.ru_utime) - tv_ns(t0->cpu.ru_utime)),
                               "sys_ns", (json_int_t)(tv_ns(t1->cpu.ru_stime) - tv_ns(t0->cpu.ru_stime)),
                               "units", (json_int_t)units_started(run),
                               "peak_live", (json_int_t)units_peak(run),
                               "result", result);
    if (sample && slowdown > 0)
        json_object_set_new(sample, "unstretched_ns", json_integer(t1->unstretched_ns));
    if (sample && run->nevidence > 0) {
        json_t *evidence = json_object();
        for (int i = 0; i < run->nevidence; i++)
            json_object_set_new(evidence, run->evidence_name[i],
                                run->evidence_null[i] ? json_null()
                                                      : json_integer(run->evidence_value[i]));
        json_object_set_new(sample, "evidence", evidence);
    }
    if (!sample)
        respond_error("building a run's entry: out of memory");
    return sample;
}

/* Before the clocks: the mechanism's untimed setup. */
static void prepare(const struct mechanism *m, struct run *run)
{
    if (m->prepare && m->prepare(run) < 0)
        check_run(run, -1);
}

/* After the clocks: the mechanism's untimed teardown, then the checks. */
static void finish(const struct mechanism *m, struct run *run, int rc)
{
    if (m->finish && m->finish(run) < 0)
        rc = -1;
    check_run(run, rc);
    int64_t live = atomic_load(&run->live) + run->live_local;
    if (live != 0)
        respond_error("%lld units still alive after the run (the mechanism must await every unit)",
                      (long long)live);
}

/* One run: the clocks are read right around the call, nothing else inside
 * (but the test hook's spin, when it is asked for). */
static json_t *measure(const struct mechanism *m, struct run *run, bool warmup)
{
    struct clocks t0, t1;
    prepare(m, run);
    clocks_start(&t0);
    int rc = m->run(run);
    clocks_stop(&t1, t0.wall);
    finish(m, run, rc);
    return sample_new(run, warmup, &t0, &t1);
}

/* One run of a rate workload: from where run_rate() started the clocks to
 * the mechanism's return. */
static json_t *measure_rate(const struct mechanism *m, struct run *run, bool warmup)
{
    struct rate rate = {0};
    if (param_int(run, "batch", 1, &rate.batch) < 0 || param_float(run, "seconds", 0, &rate.seconds) < 0)
        respond_error("%s", run->error);
    run->rate = &rate;
    struct clocks t1;
    prepare(m, run);
    int rc = m->run(run);
    if (!rate.steps) {   /* no region to end: the clocks never started */
        finish(m, run, rc);
        respond_error("the mechanism returned without running the rate loop (run_rate)");
    }
    clocks_stop(&t1, rate.start.wall);
    finish(m, run, rc);
    json_t *sample = sample_new(run, warmup, &rate.start, &t1);
    json_object_set_new(sample, "ops", json_integer(rate.steps * rate.batch));
    return sample;
}

/* The Makefile's CFLAGS (and DEFINES), as it compiled the kit, one flag each,
 * then the test hook's slowdown if it is on. */
static json_t *kit_flags(void)
{
    json_t *flags = json_array();
    char words[] = KIT_CFLAGS, *saved;
    for (char *word = strtok_r(words, " ", &saved); word; word = strtok_r(NULL, " ", &saved))
        json_array_append_new(flags, json_string(word));
    if (slowdown > 0) {
        char hook[64];
        snprintf(hook, sizeof hook, "slowdown=%g", slowdown);
        json_array_append_new(flags, json_string(hook));
    }
    return flags;
}

int kit_cpus(void)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) < 0)   /* fails only beyond CPU_SETSIZE (1024) CPUs */
        respond_error("sched_getaffinity: %s", strerror(errno));
    return CPU_COUNT(&mine);
}

/* Every workload's mechanisms, from the registry (the protocol's list request). */
static json_t *implemented(void)
{
    json_t *found = json_object();
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++) {
        json_t *names = json_array();
        for (const struct mechanism *m = workloads[i].mechanisms; m->name; m++)
            json_array_append_new(names, json_string(m->name));
        json_object_set_new(found, workloads[i].name, names);
    }
    return found;
}

/* Prints the response with these runs (and the other fields of `more`, if
 * any), frees the request; the exit status. */
static int respond(json_t *req, json_t *runs, json_t *more)
{
    /* parallelism: C's threads run where the kernel puts them, on the CPUs of
     * the mask; the C++ kit's pools of one thread per core are sized from the
     * mask (kit_cpus()), and oneTBB's arena reads it itself. */
    json_t *resp = json_pack("{s:b, s:{s:s, s:s, s:o, s:i}, s:o}",
                             "ok", 1,
                             "runtime", "name", runtime_name, "version", __VERSION__, "flags", kit_flags(),
                             "parallelism", kit_cpus(),
                             "runs", runs);
    if (resp && more)
        json_object_update(resp, more);
    json_decref(more);
    char *line = resp ? json_dumps(resp, JSON_COMPACT) : NULL;
    if (!line)
        respond_error("building the response: out of memory");
    printf("%s\n", line);
    free(line);
    json_decref(resp);
    json_decref(req);
    return fflush(stdout) == 0 ? 0 : 1;
}

static const char *get_string(json_t *req, const char *key)
{
    const char *s = json_string_value(json_object_get(req, key));
    if (!s)
        respond_error("request: %s must be a string", key);
    return s;
}

static int64_t get_count(json_t *req, const char *key)
{
    json_t *v = json_object_get(req, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        respond_error("request: %s must be a non-negative integer", key);
    return json_integer_value(v);
}

/* --slowdown=PCT, the runtime's option slow5: a number, 0 < PCT <= 1000. */
static void parse_slowdown(const char *arg)
{
    static const char prefix[] = "--slowdown=";
    if (strncmp(arg, prefix, sizeof prefix - 1) != 0)
        respond_error("usage: concbench-%s [--slowdown=PCT] < request.json", runtime_name);
    const char *value = arg + sizeof prefix - 1;
    char *end;
    slowdown = strtod(value, &end);
    if (end == value || *end || !(slowdown > 0 && slowdown <= 1000))
        respond_error("--slowdown=%s: the percentage must be a number above 0 and at most 1000", value);
}

int kit_main(int argc, char **argv, const char *runtime)
{
    runtime_name = runtime;
    for (int i = 1; i < argc; i++)
        parse_slowdown(argv[i]);

    json_error_t jerr;
    json_t *req = json_loadf(stdin, 0, &jerr);
    if (!req)
        respond_error("request: invalid JSON: %s (line %d)", jerr.text, jerr.line);
    const char *kind = get_string(req, "kind");
    if (strcmp(kind, "floor") == 0)
        return respond(req, json_array(), NULL);   /* the kit's floor: nothing else */
    if (strcmp(kind, "list") == 0)
        return respond(req, json_array(), json_pack("{s:o}", "implements", implemented()));
    const char *workload = get_string(req, "workload");
    const char *mechanism = get_string(req, "mechanism");
    const char *scratch = get_string(req, "scratch");
    bool rate = strcmp(kind, "rate") == 0;
    if (!rate && strcmp(kind, "fixed") != 0)
        respond_error("request: unknown kind %s", kind);
    int64_t warmup = get_count(req, "warmup"), runs = get_count(req, "runs");
    json_t *params = json_object_get(req, "params");
    if (!json_is_object(params))
        respond_error("request: params must be an object");
    const struct mechanism *m = lookup(workload, mechanism);

    /* A peer that closed early must show up as EPIPE, not kill the trial. */
    signal(SIGPIPE, SIG_IGN);

    json_t *results = json_array();
    for (int64_t i = 0; i < warmup + runs; i++) {
        struct run run = {.params = params, .scratch = scratch};
        pthread_mutex_init(&run.error_lock, NULL);
        json_array_append_new(results, (rate ? measure_rate : measure)(m, &run, i < warmup));
        pthread_mutex_destroy(&run.error_lock);
    }

    return respond(req, results, NULL);
}
