/* The concbench C kit: what a workload file sees.
 *
 * A mechanism is one function `int fn(struct run *run)`: it reads its
 * parameters with param_int() and its kin, does the whole job of one run
 * (creates its units, waits for all of them, closes and frees what it
 * opened), sets run->units and the result with result_set(), and returns 0.
 * On failure it returns -1 after run_fail()/run_syserr() recorded why.
 * A mechanism of a rate workload sets up, then hands the kit its batches
 * with run_rate(). */
#ifndef CONCBENCH_KIT_H
#define CONCBENCH_KIT_H

#include <jansson.h>
#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RESULT_MAX 4

struct rate;   /* the kit's rate loop, private to kit.c */

struct run {
    const json_t *params;   /* the request's "params" object */
    const char *scratch;    /* an empty directory this trial may use */
    struct rate *rate;      /* NULL unless the workload is a rate workload */
    int64_t units;          /* concurrency units the run really created */
    int nresults;
    const char *result_name[RESULT_MAX];
    int64_t result_value[RESULT_MAX];
    /* The first failure wins; threads may report concurrently. */
    pthread_mutex_t error_lock;
    bool failed;
    char error[256];
};

struct mechanism {
    const char *name;
    int (*run)(struct run *run);
};

/* One table per workload file, ended by {NULL, NULL}. */
extern const struct mechanism pipe_mechanisms[];
extern const struct mechanism socketpair_mechanisms[];
extern const struct mechanism mutex_cpu_mechanisms[];
extern const struct mechanism mutex_io_mechanisms[];
extern const struct mechanism queue_mechanisms[];
extern const struct mechanism invoke_mechanisms[];
extern const struct mechanism invoke_waiting_mechanisms[];
extern const struct mechanism yield_mechanisms[];
extern const struct mechanism await_readable_mechanisms[];
extern const struct mechanism await_writable_mechanisms[];
extern const struct mechanism spawn_mechanisms[];

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

/* The loop of a rate workload (docs/protocol.md, "Rate workloads"): once the
 * mechanism has set up, it calls run_rate(), which starts the clocks and
 * calls step(run, state), one batch of the `batch` parameter's operations,
 * until the `seconds` parameter has passed (at least once), reading the
 * clock once per step. The mechanism then, still timed, awaits what is
 * outstanding and returns; the kit stops the clocks then and reports
 * ops = steps x batch. A step returns 0, or -1 after run_fail(); so does
 * run_rate(). */
int run_rate(struct run *run, int (*step)(struct run *run, void *state), void *state);

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
int thread_start(struct run *run, pthread_t *tid, void *(*fn)(void *), void *arg);
int thread_join(struct run *run, pthread_t tid);

/* io_uring: a ring for up to `inflight` requests at once. */
int uring_init(struct run *run, struct io_uring *ring, unsigned inflight);
/* The next free SQE, submitting what is queued when the queue is full. */
struct io_uring_sqe *uring_sqe(struct run *run, struct io_uring *ring);
/* The event loop: submits what is queued and hands every completion to
 * `complete`, which returns how many of the `open` units it finished (or -1),
 * until none is open. Returns 0, or -1 on failure. */
int uring_run(struct run *run, struct io_uring *ring, int64_t open,
              int (*complete)(void *state, const struct io_uring_cqe *cqe), void *state);
/* After a failure: cancel the `inflight` requests still pending and reap
 * them, so none outlives the buffers and descriptors it uses. */
void uring_abort(struct io_uring *ring, unsigned inflight);

#endif
