// Queue: per group one queue of at most `capacity` (0: no bound);
// `producers` units each push 1..`items`; once they are done, one stop
// token per consumer is pushed; `consumers` units pop until a stop token,
// counting and summing.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

#include <memory>
#include <vector>

constexpr int64_t stop = 0;   // the values pushed are 1..items

struct shape {
    int64_t groups, producers, consumers, items, capacity;

    explicit shape(kit::run &r)
        : groups(kit::count(r, "groups", 1)), producers(kit::count(r, "producers", 1)),
          consumers(kit::count(r, "consumers", 1)), items(kit::count(r, "items", 1)),
          capacity(kit::count(r, "capacity"))
    {
    }
};

// What one unit counted: a consumer its pops, every unit its waits.
struct tally {
    int64_t count = 0, sum = 0, blocked = 0;
};

static void report(kit::run &r, const std::vector<tally> &tallies)
{
    tally total;
    for (const tally &t : tallies) {
        total.count += t.count;
        total.sum += t.sum;
        total.blocked += t.blocked;
    }
    result_set(&r, "count", total.count);
    result_set(&r, "sum", total.sum);
    evidence_set(&r, "blocked", total.blocked);
}

// std::jthreads on a blocking queue per group; the caller pushes a group's
// stop tokens once its producers are joined.
static void queue_thread(kit::run &r)
{
    shape s(r);
    std::vector<std::unique_ptr<blocking_queue<int64_t>>> queues;
    for (int64_t g = 0; g < s.groups; g++)
        queues.push_back(std::make_unique<blocking_queue<int64_t>>(s.capacity));
    std::vector<tally> tallies(s.groups * (s.producers + s.consumers));
    {
        std::vector<std::jthread> consumers;
        std::vector<std::vector<std::jthread>> producers(s.groups);
        int64_t next = 0;
        for (int64_t g = 0; g < s.groups; g++) {
            auto &queue = *queues[g];
            for (int64_t c = 0; c < s.consumers; c++)
                consumers.push_back(kit::thread(r, [&queue, &t = tallies[next++]] {
                    for (int64_t value; t.blocked += queue.pop(value), value != stop;) {
                        t.count++;
                        t.sum += value;
                    }
                }));
            for (int64_t p = 0; p < s.producers; p++)
                producers[g].push_back(kit::thread(r, [&queue, &t = tallies[next++], items = s.items] {
                    for (int64_t value = 1; value <= items; value++)
                        t.blocked += queue.push(value);
                }));
        }
        for (int64_t g = 0; g < s.groups; g++) {
            producers[g].clear();   // joined
            for (int64_t c = 0; c < s.consumers; c++)
                queues[g]->push(stop);
        }
    }
    kit::check(r);
    report(r, tallies);
}

// Coroutines on a channel per group; the run's coroutine sends a group's
// stop tokens once its producers are awaited.
static void queue_asio(kit::run &r)
{
    shape s(r);
    loop &l = loop_of(r);
    std::vector<std::unique_ptr<channel<int64_t>>> queues;
    for (int64_t g = 0; g < s.groups; g++)
        queues.push_back(std::make_unique<channel<int64_t>>(l.ctx, capacity_of(s.capacity)));
    std::vector<tally> tallies(s.groups * (s.producers + s.consumers));
    l.run([&]() -> awaitable<void> {
        group consumers(l);
        std::vector<std::unique_ptr<group>> producers;
        int64_t next = 0;
        for (int64_t g = 0; g < s.groups; g++) {
            auto &queue = *queues[g];
            for (int64_t c = 0; c < s.consumers; c++)
                consumers.spawn([&queue, &t = tallies[next++]]() -> awaitable<void> {
                    for (;;) {
                        int64_t value = co_await take(queue, t.blocked);
                        if (value == stop)
                            break;
                        t.count++;
                        t.sum += value;
                    }
                });
            producers.push_back(std::make_unique<group>(l));
            for (int64_t p = 0; p < s.producers; p++)
                producers[g]->spawn([&queue, &t = tallies[next++], items = s.items]() -> awaitable<void> {
                    for (int64_t value = 1; value <= items; value++)
                        co_await give(queue, value, t.blocked);
                });
        }
        for (int64_t g = 0; g < s.groups; g++) {
            co_await producers[g]->join();
            for (int64_t c = 0; c < s.consumers; c++)
                co_await queues[g]->async_send(error_code{}, stop, use_awaitable);
        }
        co_await consumers.join();
    });
    report(r, tallies);
}

const struct mechanism queue_mechanisms[] = {
    kit::row("thread", kit::guarded<queue_thread>),
    asio_row(kit::guarded<queue_asio>),
    asio_mt_row(kit::guarded<queue_asio>),
    {},
};
