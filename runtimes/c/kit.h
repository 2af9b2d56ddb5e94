/* The concbench C kit: what a workload file sees.
 *
 * A mechanism is one function `int fn(struct run *run)`: it reads its
 * parameters with param_int() and its kin, does the whole job of one run
 * (creates its units, waits for all of them, closes and frees what it
 * opened), sets the result with result_set() (and the workload's evidence
 * with evidence_set()), and returns 0. On failure it returns -1 after
 * run_fail()/run_syserr() recorded why. A mechanism of a rate workload sets
 * up, then hands the kit its batches with run_rate().
 *
 * Untimed steps around a run (docs/protocol.md): a mechanism may also have
 *   prepare(run): called before the clocks start; makes what the run only
 *     reads or writes into (a compiled pattern, files), kept in run->state.
 *     Returns 0, or -1 after run_fail() (the trial then ends, and finish()
 *     is not called).
 *   finish(run): called after the clocks stop, whenever prepare() succeeded
 *     (or there is none), also after a failed run, so that it can undo what
 *     prepare() made; it may check and report the run (result_set() of what
 *     can only be taken afterwards, such as the sizes of files the run
 *     wrote). Returns 0, or -1 after run_fail().
 * They are called for every run, warm-ups too; run->state is NULL before
 * prepare() and the kit does nothing with it.
 *
 * Units, peak_live (docs/protocol.md, "Evidence"): the kit counts the units
 * itself. Every unit calls unit_started() as the first act of its body and
 * unit_finished() as its last; the run reports as `units` how many started
 * and as `peak_live` the most alive at once. Threads use unit_started() and
 * unit_finished(): a few relaxed atomic operations on the run, touched only
 * as a thread starts and ends, never inside the work, next to the tens of
 * microseconds a thread's start and join take here (c/pthread invoke). Units that all run on the thread that called the
 * mechanism (coroutines, switched by hand) use unit_started_local() and
 * unit_finished_local(): plain counters, as nothing else can touch them. A
 * run uses one kind or the other. A mechanism whose one thread multiplexes
 * the work (epoll, io_uring) or whose caller is the unit (a pthread rate
 * loop) counts that thread as its unit, around the work. A mechanism that
 * starts no unit (none) calls neither: units = peak_live = 0. After the run
 * (and finish()) every unit that started must have finished, or the run
 * fails.
 *
 * What the local counting costs, measured where it weighs most: c/coroutine
 * invoke mode=await batch=100 seconds=1, a coroutine created, run to its end
 * and awaited per operation, ~22 ns. Built without it
 *   make -s BUILD=/tmp/c-nolive DEFINES=-DKIT_NO_LIVE_COUNT
 * (the _local calls then do nothing) and with it, 10 runs of each
 * alternated back to back (2 cores, shared): median 23.1 ns/op without,
 * 21.9 ns/op with; fastest 21.4 and 20.9. The cost (two increments, a
 * compare and a decrement on a line the run already touches) is below the
 * run-to-run noise of about 2 ns.
 *
 * Evidence: evidence_set(run, name, n) reports one of the counts the
 * workload's spec declares under [evidence]; evidence_unobservable(run,
 * name) reports null, for a count the mechanism cannot see (say why in a
 * comment there). Each unit counts its events in a variable of its own;
 * the mechanism sums them after it has awaited the units. */
#ifndef CONCBENCH_KIT_H
#define CONCBENCH_KIT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The C++ kit (runtimes/cpp) includes this header too: there the counters
 * are std::atomic<int64_t>, which GCC lays out as _Atomic int64_t (C++23's
 * <stdatomic.h> makes the two one type), and the same inline functions
 * below use std's atomic functions of the same names. */
#ifdef __cplusplus
#include <atomic>
#define KIT_ATOMIC(type) std::atomic<type>
using std::atomic_compare_exchange_weak_explicit;
using std::atomic_fetch_add_explicit;
using std::atomic_fetch_sub_explicit;
using std::atomic_load_explicit;
using std::memory_order_relaxed;
extern "C" {
#else
#include <stdatomic.h>
#define KIT_ATOMIC(type) _Atomic type
#endif

#define RESULT_MAX 4
#define EVIDENCE_MAX 2

struct rate;   /* the kit's rate loop, private to kit.c */

struct run {
    const json_t *params;   /* the request's "params" object */
    const char *scratch;    /* an empty directory this trial may use */
    struct rate *rate;      /* NULL unless the workload is a rate workload */
    void *state;            /* the mechanism's own, from prepare() to finish() */
    int nresults;
    const char *result_name[RESULT_MAX];
    int64_t result_value[RESULT_MAX];
    int nevidence;
    const char *evidence_name[EVIDENCE_MAX];
    int64_t evidence_value[EVIDENCE_MAX];
    bool evidence_null[EVIDENCE_MAX];
    /* Kept by unit_started() and unit_finished() (threads) ... */
    KIT_ATOMIC(int64_t) started, live, peak;
    /* ... and by unit_started_local() and unit_finished_local() (units on
     * the calling thread). */
    int64_t started_local, live_local, peak_local;
    /* The first failure wins; threads may report concurrently. */
    pthread_mutex_t error_lock;
    bool failed;
    char error[256];
};

struct mechanism {
    const char *name;
    int (*run)(struct run *run);
    int (*prepare)(struct run *run);   /* optional: before the clocks */
    int (*finish)(struct run *run);    /* optional: after the clocks */
};

/* The registry. Each workload file workloads/<id>.c defines the table of
 * its mechanisms, <id>_mechanisms (dashes as underscores), ended by {0}; code
 * shared by several workloads is in lib/, so that every file in workloads/
 * is a workload (the harness, too, takes one there as the workload
 * implemented). The Makefile writes build/gen/workloads.def, a line
 * WORKLOAD("<id>", <id>_mechanisms) per file: adding a workload touches its
 * file only. Declared here, each table is checked where it is defined; kit.c
 * makes the dispatch table from the same lines. */
#define WORKLOAD(id, table) extern const struct mechanism table[];
#include "workloads.def"
#undef WORKLOAD

/* Fetches integer parameter `name` (>= min) into *value; -1 if missing,
 * not an integer or too small. */
int param_int(struct run *run, const char *name, int64_t min, int64_t *value);
/* Fetches number parameter `name` (>= min) into *value; -1 if missing, not a
 * number or too small. */
int param_float(struct run *run, const char *name, double min, double *value);
/* Fetches string parameter `name`, which must be one of `choices` (ended by
 * NULL), into *index, its position there; -1 if missing or not a choice. */
int param_choice(struct run *run, const char *name, const char *const choices[], int *index);

void result_set(struct run *run, const char *name, int64_t value);
/* One of the spec's [evidence] counts; _unobservable reports it as null. */
void evidence_set(struct run *run, const char *name, int64_t value);
void evidence_unobservable(struct run *run, const char *name);

/* A unit's first and last acts (see the header comment). */
static inline void unit_started(struct run *run)
{
    atomic_fetch_add_explicit(&run->started, 1, memory_order_relaxed);
    /* Every change of `live` is one step in its single modification order,
     * so the values these additions return are every value it took on its
     * way up: their maximum is the peak, even with relaxed ordering. */
    int64_t live = atomic_fetch_add_explicit(&run->live, 1, memory_order_relaxed) + 1;
    int64_t peak = atomic_load_explicit(&run->peak, memory_order_relaxed);
    while (live > peak && !atomic_compare_exchange_weak_explicit(&run->peak, &peak, live,
                                                                 memory_order_relaxed,
                                                                 memory_order_relaxed))
        ;
}

static inline void unit_finished(struct run *run)
{
    atomic_fetch_sub_explicit(&run->live, 1, memory_order_relaxed);
}

/* For units that all run on the calling thread: plain counters (their cost:
 * see the header comment). */
static inline void unit_started_local(struct run *run)
{
#ifndef KIT_NO_LIVE_COUNT
    run->started_local++;
    if (++run->live_local > run->peak_local)
        run->peak_local = run->live_local;
#else
    (void)run;
#endif
}

static inline void unit_finished_local(struct run *run)
{
#ifndef KIT_NO_LIVE_COUNT
    run->live_local--;
#else
    (void)run;
#endif
}

/* The loop of a rate workload (docs/protocol.md, "Rate workloads"): once the
 * mechanism has set up, it calls run_rate(), which starts the clocks and
 * calls step(run, state), one batch of the `batch` parameter's operations,
 * until the `seconds` parameter has passed (at least once), reading the
 * clock once per step. The mechanism then, still timed, awaits what is
 * outstanding and returns; the kit stops the clocks then and reports
 * ops = steps x batch. A step returns 0, or -1 after run_fail(); so does
 * run_rate(). */
int run_rate(struct run *run, int (*step)(struct run *run, void *state), void *state);

/* The same loop turned inside out, for a mechanism whose batches run inside
 * a scheduler of its own (a coroutine that awaits between operations):
 * rate_start() starts the clocks (0, or -1 after run_fail()); after each
 * batch, rate_next() counts it and says whether another is due. */
int rate_start(struct run *run);
bool rate_next(struct run *run);

/* Record a failure (the first one is kept) and return -1. Thread-safe. */
int run_fail(struct run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "<call>: <strerror(err)>"; err is errno, a pthread return code or -res. */
int run_syserr(struct run *run, const char *call, int err);
bool run_failed(struct run *run);

/* Shared helpers. */
int write_all(struct run *run, int fd, const char *buf, size_t len);
int close_fd(struct run *run, int fd);   /* close(), failure reported */
char *block_new(struct run *run, size_t size);  /* `size` bytes of 'x' */
/* pthread_create, failure reported; the thread's body counts itself with
 * unit_started()/unit_finished(). */
int thread_start(struct run *run, pthread_t *tid, void *(*fn)(void *), void *arg);
int thread_join(struct run *run, pthread_t tid);
/* A server's announcement, made as the last untimed step before the clocks:
 * one line {"listening": "tcp:127.0.0.1:PORT"} or {"listening":
 * "unix:PATH"} on stdout for the bound socket `fd`, flushed at once, so that
 * the harness hands the address to the load generator while the run goes on. */
int listener_announce(struct run *run, int fd);

/* The CPUs this process may run on: the count of its affinity mask, which a
 * confined trial's spawner narrowed to the request's cpus (docs/protocol.md,
 * "CPUs"). A pool of "one per core" is sized from it, and the answer's
 * runtime.parallelism is it (kit.c). Not get_nprocs() nor
 * sysconf(_SC_NPROCESSORS_ONLN), nor libstdc++'s
 * std::thread::hardware_concurrency(), which reads get_nprocs(): they count
 * every online CPU, whatever the mask (2 under taskset -c 0 here). */
int kit_cpus(void);

/* One trial: reads the request, runs it, answers as `runtime` (kit.c). */
int kit_main(int argc, char **argv, const char *runtime);

#ifdef __cplusplus
}
#endif

#endif
