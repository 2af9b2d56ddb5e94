// The stream workloads (pipe, socketpair), written once: per group a
// writer sends `messages` blocks of `size` bytes and ends its side, a
// reader reads until EOF, looping on short reads, and counts the bytes.
// They differ in how the pair is made and how the writer ends its side.
#pragma once

#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <unistd.h>

#include <string>
#include <vector>

struct stream_shape {
    int64_t groups, messages, size;

    explicit stream_shape(kit::run &r)
        : groups(kit::count(r, "groups", 1)), messages(kit::count(r, "messages", 1)), size(kit::count(r, "size", 1))
    {
    }
};

// Two std::jthreads a group on blocking descriptors: `make_pair(fds)`
// gives the reader's end fds[0] and the writer's fds[1]; `end_writer(fd)`
// ends the writer's side and closes it.
template <class MakePair, class EndWriter>
void stream_thread(kit::run &r, MakePair make_pair, EndWriter end_writer)
{
    stream_shape s(r);
    const std::string block(s.size, 'x');
    std::vector<int64_t> received(s.groups);
    {
        std::vector<std::jthread> units;
        for (int64_t g = 0; g < s.groups; g++) {
            int fds[2];
            make_pair(fds);
            units.push_back(kit::thread(r, [&r, &s, &bytes = received[g], fd = fds[0]] {
                std::vector<char> buffer(s.size);
                for (ssize_t n; (n = read(fd, buffer.data(), buffer.size())) != 0;) {
                    if (n < 0)
                        kit::syserr(r, "read", errno);
                    bytes += n;
                }
                close(fd);
            }));
            units.push_back(kit::thread(r, [&r, &s, &block, &end_writer, fd = fds[1]] {
                for (int64_t m = 0; m < s.messages; m++)
                    if (write_all(&r, fd, block.data(), block.size()) < 0)
                        kit::fail(r);
                end_writer(fd);
            }));
        }
    }
    kit::check(r);
    int64_t bytes = 0;
    for (int64_t n : received)
        bytes += n;
    result_set(&r, "bytes", bytes);
}

// Two coroutines a group on the loop's reactor: `make_pair(l)` gives the
// reader's and the writer's asio objects; `end_writer(writer)` ends the
// writer's side.
template <class MakePair, class EndWriter>
void stream_asio(kit::run &r, MakePair make_pair, EndWriter end_writer)
{
    stream_shape s(r);
    loop &l = loop_of(r);
    const std::string block(s.size, 'x');
    std::atomic<int64_t> bytes = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t g = 0; g < s.groups; g++) {
            auto [reader, writer] = make_pair(l);
            units.spawn([&, reader = std::move(reader)]() mutable -> awaitable<void> {
                std::vector<char> buffer(s.size);
                int64_t received = 0;
                for (;;) {
                    error_code ec;
                    size_t n =
                        co_await reader.async_read_some(asio::buffer(buffer), asio::redirect_error(use_awaitable, ec));
                    if (ec == asio::error::eof)
                        break;
                    if (ec)
                        throw boost::system::system_error(ec, "read");
                    received += n;
                }
                bytes.fetch_add(received, std::memory_order_relaxed);
            });
            units.spawn([&, writer = std::move(writer)]() mutable -> awaitable<void> {
                for (int64_t m = 0; m < s.messages; m++)
                    co_await asio::async_write(writer, asio::buffer(block), use_awaitable);
                end_writer(writer);
            });
        }
        co_await units.join();
    });
    result_set(&r, "bytes", bytes);
}
