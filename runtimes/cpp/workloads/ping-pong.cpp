// Ping-pong: `pairs` pairs at once; a pinger sends a count (from 0) to its
// ponger, which sends back the count plus one, and so on until the pinger
// has had `rounds` replies; it then stops its ponger (a negative count) and
// reports the last count it received. The caller sums the counts.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

#include <atomic>
#include <memory>
#include <vector>

constexpr int64_t stop = -1;

// Two std::jthreads a pair, each with a blocking queue as its inbox.
static void ping_pong_thread(kit::run &r)
{
    int64_t pairs = kit::count(r, "pairs", 1), rounds = kit::count(r, "rounds", 1);
    std::vector<blocking_queue<int64_t>> to_pinger(pairs), to_ponger(pairs);
    std::vector<int64_t> last(pairs);
    {
        std::vector<std::jthread> units;
        for (int64_t p = 0; p < pairs; p++) {
            units.push_back(kit::thread(r, [&, p] {
                int64_t count = 0;
                for (int64_t round = 0; round < rounds; round++) {
                    to_ponger[p].push(round == 0 ? 0 : count + 1);
                    to_pinger[p].pop(count);
                }
                to_ponger[p].push(stop);
                last[p] = count;
            }));
            units.push_back(kit::thread(r, [&, p] {
                for (int64_t count; to_ponger[p].pop(count), count != stop;)
                    to_pinger[p].push(count + 1);
            }));
        }
    }
    kit::check(r);
    int64_t sum = 0;
    for (int64_t count : last)
        sum += count;
    result_set(&r, "count", sum);
}

// Two coroutines a pair, each with a channel of one as its inbox.
static void ping_pong_asio(kit::run &r)
{
    int64_t pairs = kit::count(r, "pairs", 1), rounds = kit::count(r, "rounds", 1);
    loop &l = loop_of(r);
    std::vector<std::unique_ptr<channel<int64_t>>> to_pinger, to_ponger;
    for (int64_t p = 0; p < pairs; p++) {
        to_pinger.push_back(std::make_unique<channel<int64_t>>(l.ctx, 1));
        to_ponger.push_back(std::make_unique<channel<int64_t>>(l.ctx, 1));
    }
    std::atomic<int64_t> sum = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t p = 0; p < pairs; p++) {
            channel<int64_t> &ping = *to_ponger[p], &pong = *to_pinger[p];
            units.spawn([&, rounds]() -> awaitable<void> {
                int64_t count = 0;
                for (int64_t round = 0; round < rounds; round++) {
                    co_await ping.async_send(error_code{}, round == 0 ? 0 : count + 1, use_awaitable);
                    count = co_await pong.async_receive(use_awaitable);
                }
                co_await ping.async_send(error_code{}, stop, use_awaitable);
                sum.fetch_add(count, std::memory_order_relaxed);
            });
            units.spawn([&]() -> awaitable<void> {
                for (;;) {
                    int64_t count = co_await ping.async_receive(use_awaitable);
                    if (count == stop)
                        break;
                    co_await pong.async_send(error_code{}, count + 1, use_awaitable);
                }
            });
        }
        co_await units.join();
    });
    result_set(&r, "count", sum);
}

const struct mechanism ping_pong_mechanisms[] = {
    kit::row("thread", kit::guarded<ping_pong_thread>),
    asio_row(kit::guarded<ping_pong_asio>),
    asio_mt_row(kit::guarded<ping_pong_asio>),
    {},
};
