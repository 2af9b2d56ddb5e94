// Pipe: per group a pipe, a writer and a reader (see lib/stream.hpp); the
// writer ends its side by closing it.
#include "lib/stream.hpp"

#include <fcntl.h>

static void pipe_thread(kit::run &r)
{
    stream_thread(
        r,
        [&r](int fds[2]) {
            if (pipe2(fds, O_CLOEXEC) < 0)
                kit::syserr(r, "pipe2", errno);
        },
        [](int fd) { close(fd); });
}

// asio's pipes (readable_pipe and writable_pipe, made by connect_pipe).
static void pipe_asio(kit::run &r)
{
    stream_asio(
        r,
        [](loop &l) {
            std::pair<asio::readable_pipe, asio::writable_pipe> ends{l.ctx, l.ctx};
            asio::connect_pipe(ends.first, ends.second);
            return ends;
        },
        [](asio::writable_pipe &writer) { writer.close(); });
}

const struct mechanism pipe_mechanisms[] = {
    kit::row("thread", kit::guarded<pipe_thread>),
    asio_row(kit::guarded<pipe_asio>),
    asio_mt_row(kit::guarded<pipe_asio>),
    {},
};
