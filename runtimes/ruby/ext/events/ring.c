/* The core's io_uring back end (events.h): reads, writes, polls, timeouts
 * and cancellations are ring entries whose user data is the op; entries are
 * prepared as fibers ask and submitted together when the loop waits
 * (io_uring_submit_and_wait), or polls between turns without waiting
 * (io_uring_submit_and_get_events), or when the submission queue is full.
 * The ring is set up as UringMachine's is, where the kernel allows:
 * COOP_TASKRUN (completions are posted when the thread enters the kernel,
 * which the loop does each turn, not by interrupting it) and SUBMIT_ALL (a
 * batch goes on past an entry that fails). */
#include "events.h"

#include <errno.h>
#include <liburing.h>

struct ring {
    struct io_uring uring;
    unsigned pending;   /* prepared, not yet submitted */
    unsigned long long submissions, enters, completions;
};

static void *ring_open(unsigned entries)
{
    struct ring *r = ZALLOC(struct ring);
    struct io_uring_params params = {.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL};
    int rc = io_uring_queue_init_params(entries, &r->uring, &params);
    if (rc == -EINVAL) {   /* a kernel older than 5.19 knows neither flag */
        params = (struct io_uring_params){0};
        rc = io_uring_queue_init_params(entries, &r->uring, &params);
    }
    if (rc < 0) {
        xfree(r);
        rb_syserr_fail(-rc, "io_uring_queue_init");
    }
    return r;
}

static void ring_close(void *p)
{
    struct ring *r = p;
    io_uring_queue_exit(&r->uring);
    xfree(r);
}

/* Counts a submission of what was prepared (rc: io_uring's return; a
 * signal or a timeout that ended a wait submitted nothing). */
static void submitted(struct ring *r, int rc)
{
    if (rc == -EINTR || rc == -ETIME)
        rc = 0;
    if (rc < 0)
        rb_syserr_fail(-rc, "io_uring_submit");
    r->enters++;
    r->submissions += r->pending;
    r->pending = 0;
}

/* A submission entry for op; a full queue is submitted first to make room. */
static struct io_uring_sqe *sqe_for(struct ring *r, struct op *op)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);
    if (!sqe) {
        submitted(r, io_uring_submit(&r->uring));
        sqe = io_uring_get_sqe(&r->uring);
        if (!sqe)
            rb_raise(rb_eIOError, "io_uring: no submission entry after submitting");
    }
    r->pending++;
    io_uring_sqe_set_data(sqe, op);
    return sqe;
}

static void ring_transfer(void *p, struct op *op, int fd, bool reading, char *base, unsigned count, long long position)
{
    struct io_uring_sqe *sqe = sqe_for(p, op);
    if (reading)
        io_uring_prep_read(sqe, fd, base, count, (__u64)position);
    else
        io_uring_prep_write(sqe, fd, base, count, (__u64)position);
}

static void ring_poll(void *p, struct op *op, int fd, unsigned events)
{
    io_uring_prep_poll_add(sqe_for(p, op), fd, events);
}

static void ring_timeout(void *p, struct op *op, const struct __kernel_timespec *ts)
{
    io_uring_prep_timeout(sqe_for(p, op), (struct __kernel_timespec *)ts, 0, 0);
}

/* The cancellation's own completion has no op (NULL: the core skips it). */
static void ring_cancel(void *p, struct op *op)
{
    io_uring_prep_cancel(sqe_for(p, NULL), op, 0);
}

struct wait_args {
    struct ring *r;
    int rc;
};

static void *submit_and_wait_nogvl(void *p)
{
    struct wait_args *a = p;
    a->rc = io_uring_submit_and_wait(&a->r->uring, 1);
    return NULL;
}

static void ring_wait(void *p, struct core *core, bool blocking)
{
    struct ring *r = p;
    if (blocking) {
        struct wait_args a = {r, 0};
        rb_thread_call_without_gvl(submit_and_wait_nogvl, &a, RUBY_UBF_IO, NULL);
        submitted(r, a.rc);
    }
    else   /* enters the kernel even with nothing to submit, for the completions it has not posted yet */
        submitted(r, io_uring_submit_and_get_events(&r->uring));
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&r->uring, head, cqe) {
        core_complete(core, io_uring_cqe_get_data(cqe), cqe->res);
        seen++;
    }
    io_uring_cq_advance(&r->uring, seen);
    r->completions += seen;
}

static VALUE ring_counts(const void *p)
{
    const struct ring *r = p;
    static const char *const names[] = {"submissions", "enters", "completions"};
    const unsigned long long counts[] = {r->submissions, r->enters, r->completions};
    return counts_hash(names, counts, 3);
}

const struct backend uring_backend = {
    .open = ring_open,
    .close = ring_close,
    .transfer = ring_transfer,
    .poll = ring_poll,
    .timeout = ring_timeout,
    .cancel = ring_cancel,
    .wait = ring_wait,
    .counts = ring_counts,
};
