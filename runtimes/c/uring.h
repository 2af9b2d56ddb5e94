/* io_uring for the code that uses it (lib/stream.c, lib/readiness.c): only
 * it includes liburing, through this header. */
#ifndef CONCBENCH_URING_H
#define CONCBENCH_URING_H

#include "kit.h"

#include <liburing.h>

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
