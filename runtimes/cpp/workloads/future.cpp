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

// co_spawn with asio's experimental use_promise: each coroutine starts at
// once, and its promise is awaited afterwards.
static void future_asio(kit::run &r)
{
    int64_t futures = kit::count(r, "futures", 1);
    loop &l = loop_of(r);
    int64_t sum = 0;
    l.run([&]() -> awaitable<void> {
        using promise = asio::experimental::promise<void(std::exception_ptr, int64_t), asio::any_io_executor>;
        std::vector<promise> started;
        started.reserve(futures);
        for (int64_t i = 0; i < futures; i++)
            started.push_back(asio::co_spawn(
                l.ctx,
                [&l, i]() -> awaitable<int64_t> {
                    auto counted = l.unit();
                    co_return compute(i);
                },
                asio::experimental::use_promise));
        for (auto &p : started)
            sum += co_await p(use_awaitable);
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
