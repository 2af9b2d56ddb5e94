/* io_uring helpers for the code that uses it (uring.h), and the
 * probe that tells whether this kernel lets the kit make a ring. */
#include "uring.h"
#include "probes.h"

#include <stdio.h>
#include <string.h>

int uring_init(struct run *run, struct io_uring *ring, unsigned inflight)
{
    /* The submission queue only needs to take one batch (uring_sqe submits
     * when it is full); the completion queue takes every request that can be
     * in flight at once, so completions never overflow. */
    struct io_uring_params p = {0};
    unsigned sq = inflight < 8 ? 8 : inflight > 4096 ? 4096 : inflight;
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = inflight > sq ? inflight : sq;
    int rc = io_uring_queue_init_params(sq, ring, &p);
    return rc < 0 ? run_syserr(run, "io_uring_queue_init_params", -rc) : 0;
}

struct io_uring_sqe *uring_sqe(struct run *run, struct io_uring *ring)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe)
        return sqe;
    int rc = io_uring_submit(ring);
    if (rc < 0) {
        run_syserr(run, "io_uring_submit", -rc);
        return NULL;
    }
    sqe = io_uring_get_sqe(ring);
    if (!sqe)
        run_fail(run, "io_uring_get_sqe: submission queue still full");
    return sqe;
}

int uring_run(struct run *run, struct io_uring *ring, int64_t open,
              int (*complete)(void *state, const struct io_uring_cqe *cqe), void *state)
{
    while (open > 0) {
        int rc = io_uring_submit_and_wait(ring, 1);
        if (rc < 0 && rc != -EINTR)
            return run_syserr(run, "io_uring_submit_and_wait", -rc);
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(ring, head, cqe) {
            seen++;
            if ((rc = complete(state, cqe)) < 0)
                break;
            open -= rc;
        }
        io_uring_cq_advance(ring, seen);
        if (rc < 0)
            return -1;
    }
    return 0;
}

void uring_abort(struct io_uring *ring, unsigned inflight)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe) {
        io_uring_submit(ring);
        sqe = io_uring_get_sqe(ring);
    }
    if (sqe) {
        /* Queued after everything else, so it also cancels what the queue
         * still holds; its own completion is counted like the others. */
        io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
        inflight++;
    }
    while (inflight > 0) {
        int rc = io_uring_submit_and_wait(ring, 1);
        if (rc < 0 && rc != -EINTR)
            return;
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(ring, head, cqe) seen++;
        io_uring_cq_advance(ring, seen);
        inflight -= seen < inflight ? seen : inflight;
    }
}

int uring_probe(void)
{
    struct io_uring ring;
    int rc = io_uring_queue_init(8, &ring, 0);
    if (rc < 0) {
        fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-rc));
        return 1;
    }
    io_uring_queue_exit(&ring);
    return 0;
}
