// Future: `futures` futures, all created before any is awaited; future i
// computes (i x i) mod 1,000; then each is awaited and the values summed.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <oneapi/tbb/task_group.h>

#include <future>
#include <vector>

static int64_t compute(int64_t i) { return i * i % 1000; }

// std::async with std::launch::async: a thread per future, its std::future
// awaited with get().
static void future_thread(kit::run &r)
{
    int64_t futures = kit::count(r, "futures", 1);
    std::vector<std::future<int64_t>> started;
    started.reserve(futures);
    for (int64_t i = 0; i < futures; i++)
        started.push_back(std::async(std::launch::async, [&r, i] {
            kit::unit counted(r, false);
            return compute(i);
        }));
    int64_t sum = 0;
    for (auto &f : started)
        sum += f.get();
    result_set(&r, "sum", sum);
}

// co_spawn per future, each started at once, its value delivered to a
// channel of one slot (the future) by the spawn's completion handler and
// taken afterwards. Not asio's experimental use_promise: its promise is
// not safe across threads, and on asio_mt a value set on one thread while
// the caller attached to it on another was lost (the trial hung).
static void future_asio(kit::run &r)
{
    int64_t futures = kit::count(r, "futures", 1);
    loop &l = loop_of(r);
    int64_t sum = 0;
    l.run([&]() -> awaitable<void> {
        std::vector<std::unique_ptr<channel<int64_t>>> started;
        started.reserve(futures);
        for (int64_t i = 0; i < futures; i++) {
            auto &value = *started.emplace_back(std::make_unique<channel<int64_t>>(l.ctx, 1));
            asio::co_spawn(
                l.ctx,
                [&l, i]() -> awaitable<int64_t> {
                    auto counted = l.unit();
                    co_return compute(i);
                },
                [&value](std::exception_ptr, int64_t computed) { value.try_send(error_code{}, computed); });
        }
        for (auto &value : started)
            sum += co_await value->async_receive(use_awaitable);
    });
    result_set(&r, "sum", sum);
}

// A tbb::task_group task per future, writing its value in a slot of its
// own; the group's wait() awaits them all (TBB's tasks return nothing).
static void future_tbb(kit::run &r)
{
    int64_t futures = kit::count(r, "futures", 1);
    std::vector<int64_t> values(futures);
    tbb::task_group started;
    for (int64_t i = 0; i < futures; i++)
        started.run([&r, &values, i] {
            kit::unit counted(r, false);
            values[i] = compute(i);
        });
    started.wait();
    int64_t sum = 0;
    for (int64_t value : values)
        sum += value;
    result_set(&r, "sum", sum);
}

const struct mechanism future_mechanisms[] = {
    kit::row("thread", kit::guarded<future_thread>),
    asio_row(kit::guarded<future_asio>),
    asio_mt_row(kit::guarded<future_asio>),
    kit::row("tbb", kit::guarded<future_tbb>),
    {},
};
