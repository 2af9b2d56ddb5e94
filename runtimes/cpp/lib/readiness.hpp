// await-readable and await-writable, written once: `batch` pipes are made
// before the clocks; operation i of a batch awaits the readiness of pipe
// i, which is ready already (a byte waits in it, or it is empty): the cost
// of asking, not of waiting. Awaits are sequential, as in the seed.
#pragma once

#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <vector>

// The pipes, made before the clocks, and each one's end to await: its
// reader (a byte written into it) or its writer.
template <bool readable>
struct pipes {
    std::vector<int> ends, others;

    explicit pipes(kit::run &r)
    {
        int64_t batch = kit::count(r, "batch", 1);
        for (int64_t i = 0; i < batch; i++) {
            int fds[2];
            if (pipe2(fds, O_CLOEXEC) < 0)
                kit::syserr(r, "pipe2", errno);
            if (readable && write(fds[1], "x", 1) != 1)
                kit::syserr(r, "write", errno);
            ends.push_back(fds[readable ? 0 : 1]);
            others.push_back(fds[readable ? 1 : 0]);
        }
    }
    ~pipes()
    {
        for (int fd : ends)
            close(fd);
        for (int fd : others)
            close(fd);
    }
};

// The thread waits in place in poll(2), as c/pthread does: the standard
// library has no readiness wait.
template <bool readable>
void readiness_thread(kit::run &r)
{
    auto &p = kit::state<pipes<readable>>(r);
    int64_t awaited = 0;
    auto batch = [&] {
        for (int fd : p.ends) {
            pollfd ask = {.fd = fd, .events = readable ? POLLIN : POLLOUT, .revents = 0};
            if (poll(&ask, 1, -1) != 1)
                kit::syserr(r, "poll", errno);
            awaited += (ask.revents & ask.events) != 0;
        }
    };
    kit::unit counted(r, false);   // the thread running the loop
    kit::rate(r, batch);
    result_set(&r, "count", awaited);
}

// A coroutine awaits each end's readiness with posix::stream_descriptor's
// async_wait on the loop's reactor (the descriptors are the pipes', not
// owned: released before they are destroyed).
template <bool readable>
void readiness_asio(kit::run &r)
{
    auto &[l, p] = kit::state<with_loop<pipes<readable>>>(r);
    std::vector<asio::posix::stream_descriptor> ends;
    for (int fd : p.ends)
        ends.emplace_back(l.ctx, fd);
    int64_t awaited = 0;
    kit::rate_loop rate(r);
    l.run([&]() -> awaitable<void> {
        auto counted = l.unit();
        rate.start();
        do {
            for (auto &end : ends) {
                co_await end.async_wait(readable ? asio::posix::descriptor_base::wait_read
                                                 : asio::posix::descriptor_base::wait_write,
                                        use_awaitable);
                awaited++;
            }
        } while (rate.next());
    });
    for (auto &end : ends)
        end.release();
    result_set(&r, "count", awaited);
}

template <bool readable>
constexpr mechanism readiness_rows[] = {
    kit::row("thread", kit::guarded<readiness_thread<readable>>, kit::make<pipes<readable>>,
             kit::unmake<pipes<readable>>),
    asio_row_with<pipes<readable>>(kit::guarded<readiness_asio<readable>>),
    asio_mt_row_with<pipes<readable>>(kit::guarded<readiness_asio<readable>>),
    {},
};
