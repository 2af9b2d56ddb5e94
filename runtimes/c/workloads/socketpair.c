/* Socketpair: the stream workload over socketpair(AF_UNIX, SOCK_STREAM);
 * the writer ends with shutdown(SHUT_WR), then close(). */
#include "lib/stream.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

static int make_socketpair(struct run *run, int fds[2], bool nonblock)
{
    int type = SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0);
    if (socketpair(AF_UNIX, type, 0, fds) < 0)
        return run_syserr(run, "socketpair", errno);
    return 0;
}

static int end_socket_writer(struct run *run, int fd)
{
    int rc = 0;
    if (shutdown(fd, SHUT_WR) < 0)
        rc = run_syserr(run, "shutdown", errno);
    return close_fd(run, fd) < 0 ? -1 : rc;
}

static const struct stream_kind socket_kind = {make_socketpair, end_socket_writer};

static int socketpair_pthread(struct run *run) { return stream_pthread(run, &socket_kind); }
static int socketpair_epoll(struct run *run) { return stream_epoll(run, &socket_kind); }
static int socketpair_io_uring(struct run *run) { return stream_io_uring(run, &socket_kind); }

const struct mechanism socketpair_mechanisms[] = {
    {.name = "pthread", .run = socketpair_pthread},
    {.name = "epoll", .run = socketpair_epoll},
    {.name = "io_uring", .run = socketpair_io_uring},
    {0},
};
