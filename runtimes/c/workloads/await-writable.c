/* Await-writable: see lib/readiness.h; the pipes stay empty. */
#include "lib/readiness.h"

#include <poll.h>

static const struct readiness writable = {.events = POLLOUT, .filled = false};

static int await_writable_pthread(struct run *run) { return readiness_pthread(run, &writable); }
static int await_writable_epoll(struct run *run) { return readiness_epoll(run, &writable); }
static int await_writable_io_uring(struct run *run) { return readiness_io_uring(run, &writable); }

const struct mechanism await_writable_mechanisms[] = {
    {.name = "pthread", .run = await_writable_pthread},
    {.name = "epoll", .run = await_writable_epoll},
    {.name = "io_uring", .run = await_writable_io_uring},
    {0},
};
