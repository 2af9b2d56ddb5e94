// Socketpair: per group an AF_UNIX SOCK_STREAM socketpair, a writer and a
// reader (see lib/stream.hpp); the writer shuts its side down for writing.
#include "lib/stream.hpp"

#include <sys/socket.h>

static void socketpair_thread(kit::run &r)
{
    stream_thread(
        r,
        [&r](int fds[2]) {
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
                kit::syserr(r, "socketpair", errno);
        },
        [&r](int fd) {
            if (shutdown(fd, SHUT_WR) < 0)
                kit::syserr(r, "shutdown", errno);
            close(fd);
        });
}

// asio's local stream sockets, made by local::connect_pair (socketpair).
static void socketpair_asio(kit::run &r)
{
    using socket = asio::local::stream_protocol::socket;
    stream_asio(
        r,
        [](loop &l) {
            std::pair<socket, socket> ends{l.ctx, l.ctx};
            asio::local::connect_pair(ends.first, ends.second);
            return ends;
        },
        [](socket &writer) { writer.shutdown(socket::shutdown_send); });
}

const struct mechanism socketpair_mechanisms[] = {
    kit::row("thread", kit::guarded<socketpair_thread>),
    asio_row(kit::guarded<socketpair_asio>),
    asio_mt_row(kit::guarded<socketpair_asio>),
    {},
};
