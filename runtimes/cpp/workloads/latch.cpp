// Latch: `count` units serve all `rounds` rounds; each round the caller
// makes a latch of `count`, asks every unit to count it down once, and
// waits for zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own (modulo 1,000,000,007); the tallies are summed.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

#include <latch>
#include <memory>
#include <vector>

constexpr int64_t modulus = 1'000'000'007;

struct tally {
    int64_t countdowns = 0, checksum = 0;

    void count(int64_t unit, int64_t round)
    {
        countdowns++;
        checksum = (checksum + (unit + 1) * (round + 1)) % modulus;
    }
};

static void report(kit::run &r, int64_t rounds, const std::vector<tally> &tallies)
{
    int64_t countdowns = 0, checksum = 0;
    for (const tally &t : tallies) {
        countdowns += t.countdowns;
        checksum = (checksum + t.checksum) % modulus;
    }
    result_set(&r, "rounds", rounds);
    result_set(&r, "countdowns", countdowns);
    result_set(&r, "checksum", checksum);
}

// std::jthreads, each asked through a blocking queue of its own (the
// round's std::latch; nullptr: stop); the caller waits on the std::latch.
static void latch_thread(kit::run &r)
{
    int64_t count = kit::count(r, "count", 1), rounds = kit::count(r, "rounds", 1);
    std::vector<blocking_queue<std::latch *>> asks(count);
    std::vector<tally> tallies(count);
    int64_t woke = 0;
    {
        std::vector<std::jthread> units;
        for (int64_t k = 0; k < count; k++)
            units.push_back(kit::thread(r, [&asks, &tallies, k] {
                std::latch *round_latch;
                for (int64_t round = 0; asks[k].pop(round_latch), round_latch; round++) {
                    tallies[k].count(k, round);
                    round_latch->count_down();
                }
            }));
        for (int64_t round = 0; round < rounds; round++) {
            std::latch done(count);
            for (auto &ask : asks)
                ask.push(&done);
            done.wait();
            woke++;
        }
        for (auto &ask : asks)
            ask.push(nullptr);
    }
    kit::check(r);
    report(r, woke, tallies);
}

// Coroutines, each asked through a channel of one (the round's countdown;
// nullptr: stop); the caller, the run's coroutine, awaits the countdown.
static void latch_asio(kit::run &r)
{
    int64_t count = kit::count(r, "count", 1), rounds = kit::count(r, "rounds", 1);
    loop &l = loop_of(r);
    std::vector<std::unique_ptr<channel<countdown *>>> asks;
    for (int64_t k = 0; k < count; k++)
        asks.push_back(std::make_unique<channel<countdown *>>(l.ctx, 1));
    std::vector<tally> tallies(count);
    int64_t woke = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t k = 0; k < count; k++)
            units.spawn([&asks, &tallies, k]() -> awaitable<void> {
                for (int64_t round = 0;; round++) {
                    countdown *round_latch = co_await asks[k]->async_receive(use_awaitable);
                    if (!round_latch)
                        break;
                    tallies[k].count(k, round);
                    round_latch->count_down();
                }
            });
        for (int64_t round = 0; round < rounds; round++) {
            countdown done(l, count);
            for (auto &ask : asks)
                co_await ask->async_send(error_code{}, &done, use_awaitable);
            co_await done.wait();
            woke++;
        }
        for (auto &ask : asks)
            co_await ask->async_send(error_code{}, nullptr, use_awaitable);
        co_await units.join();
    });
    report(r, woke, tallies);
}

const struct mechanism latch_mechanisms[] = {
    kit::row("thread", kit::guarded<latch_thread>),
    asio_row(kit::guarded<latch_asio>),
    asio_mt_row(kit::guarded<latch_asio>),
    {},
};
