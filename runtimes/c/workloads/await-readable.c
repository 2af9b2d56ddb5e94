/* Await-readable: see lib/readiness.h; each pipe holds a byte never read. */
#include "lib/readiness.h"

#include <poll.h>

static const struct readiness readable = {.events = POLLIN, .filled = true};

static int await_readable_pthread(struct run *run) { return readiness_pthread(run, &readable); }
static int await_readable_epoll(struct run *run) { return readiness_epoll(run, &readable); }
static int await_readable_io_uring(struct run *run) { return readiness_io_uring(run, &readable); }

const struct mechanism await_readable_mechanisms[] = {
    {.name = "pthread", .run = await_readable_pthread},
    {.name = "epoll", .run = await_readable_epoll},
    {.name = "io_uring", .run = await_readable_io_uring},
    {0},
};
