// Ring: `nodes` units in a ring, each knowing the next; the first starts a
// token of count 0, every pass adds one, and after `laps` laps the first
// stops it and reports its count; then every unit is stopped (a negative
// token) and awaited.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

#include <memory>
#include <vector>

constexpr int64_t stop = -1;

// One std::jthread per node, its inbox a blocking queue.
static void ring_thread(kit::run &r)
{
    int64_t nodes = kit::count(r, "nodes", 2), laps = kit::count(r, "laps", 1);
    std::vector<blocking_queue<int64_t>> inbox(nodes);
    int64_t hops = 0;
    {
        std::vector<std::jthread> units;
        units.push_back(kit::thread(r, [&] {
            int64_t token = 0;
            inbox[1].push(1);
            for (int64_t lap = 1; lap <= laps; lap++) {
                inbox[0].pop(token);
                if (lap < laps)
                    inbox[1].push(token + 1);
            }
            hops = token;
            for (int64_t i = 1; i < nodes; i++)
                inbox[i].push(stop);
        }));
        for (int64_t i = 1; i < nodes; i++)
            units.push_back(kit::thread(r, [&inbox, i, nodes] {
                auto &next = inbox[(i + 1) % nodes];
                for (int64_t token; inbox[i].pop(token), token != stop;)
                    next.push(token + 1);
            }));
    }
    kit::check(r);
    result_set(&r, "hops", hops);
}

// One coroutine per node, its inbox a channel of one.
static void ring_asio(kit::run &r)
{
    int64_t nodes = kit::count(r, "nodes", 2), laps = kit::count(r, "laps", 1);
    loop &l = loop_of(r);
    std::vector<std::unique_ptr<channel<int64_t>>> inbox;
    for (int64_t i = 0; i < nodes; i++)
        inbox.push_back(std::make_unique<channel<int64_t>>(l.ctx, 1));
    int64_t hops = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        units.spawn([&]() -> awaitable<void> {
            int64_t token = 0;
            co_await inbox[1]->async_send(error_code{}, 1, use_awaitable);
            for (int64_t lap = 1; lap <= laps; lap++) {
                token = co_await inbox[0]->async_receive(use_awaitable);
                if (lap < laps)
                    co_await inbox[1]->async_send(error_code{}, token + 1, use_awaitable);
            }
            hops = token;
            for (int64_t i = 1; i < nodes; i++)
                co_await inbox[i]->async_send(error_code{}, stop, use_awaitable);
        });
        for (int64_t i = 1; i < nodes; i++)
            units.spawn([&inbox, i, nodes]() -> awaitable<void> {
                auto &next = *inbox[(i + 1) % nodes];
                for (;;) {
                    int64_t token = co_await inbox[i]->async_receive(use_awaitable);
                    if (token == stop)
                        break;
                    co_await next.async_send(error_code{}, token + 1, use_awaitable);
                }
            });
        co_await units.join();
    });
    result_set(&r, "hops", hops);
}

const struct mechanism ring_mechanisms[] = {
    kit::row("thread", kit::guarded<ring_thread>),
    asio_row(kit::guarded<ring_asio>),
    asio_mt_row(kit::guarded<ring_asio>),
    {},
};
