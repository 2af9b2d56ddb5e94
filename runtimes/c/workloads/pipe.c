/* Pipe: the stream workload over pipe2(); the writer ends with close(). */
#include "lib/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int make_pipe(struct run *run, int fds[2], bool nonblock)
{
    if (pipe2(fds, O_CLOEXEC | (nonblock ? O_NONBLOCK : 0)) < 0)
        return run_syserr(run, "pipe2", errno);
    return 0;
}

static int end_pipe_writer(struct run *run, int fd)
{
    return close_fd(run, fd);
}

static const struct stream_kind pipe_kind = {make_pipe, end_pipe_writer};

static int pipe_pthread(struct run *run) { return stream_pthread(run, &pipe_kind); }
static int pipe_epoll(struct run *run) { return stream_epoll(run, &pipe_kind); }
static int pipe_io_uring(struct run *run) { return stream_io_uring(run, &pipe_kind); }

const struct mechanism pipe_mechanisms[] = {
    {.name = "pthread", .run = pipe_pthread},
    {.name = "epoll", .run = pipe_epoll},
    {.name = "io_uring", .run = pipe_io_uring},
    {0},
};
