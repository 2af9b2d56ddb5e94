// Spawn: `tasks` units started at once; unit i sleeps `delay_ms` (if above
// 0) and returns i; the caller awaits them all and sums what they returned.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <oneapi/tbb/task_group.h>

#include <chrono>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

static void spawn_thread(kit::run &r)
{
    int64_t tasks = kit::count(r, "tasks", 1);
    auto delay = std::chrono::milliseconds(kit::count(r, "delay_ms"));
    std::vector<int64_t> returned(tasks);
    {
        std::vector<std::jthread> units;
        units.reserve(tasks);
        for (int64_t i = 0; i < tasks; i++)
            units.push_back(kit::thread(r, [&returned, delay, i] {
                if (delay > 0ms)
                    std::this_thread::sleep_for(delay);
                returned[i] = i;
            }));
    }   // joined
    kit::check(r);
    int64_t sum = 0;
    for (int64_t value : returned)
        sum += value;
    result_set(&r, "sum", sum);
}

// One coroutine per unit, sleeping on a steady_timer; each unit adds what
// it returns to the sum (one loop thread: a plain sum; a thread per core:
// an atomic one).
static void spawn_asio(kit::run &r)
{
    int64_t tasks = kit::count(r, "tasks", 1);
    auto delay = std::chrono::milliseconds(kit::count(r, "delay_ms"));
    loop &l = loop_of(r);
    std::atomic<int64_t> sum = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t i = 0; i < tasks; i++)
            units.spawn([&l, &sum, delay, i]() -> awaitable<void> {
                if (delay > 0ms) {
                    asio::steady_timer timer(l.ctx, delay);
                    co_await timer.async_wait(use_awaitable);
                }
                sum.fetch_add(i, std::memory_order_relaxed);
            });
        co_await units.join();
    });
    result_set(&r, "sum", sum);
}

// One task_group task per unit; without a delay only (a TBB task must not
// block: runtime.toml's limit).
static void spawn_tbb(kit::run &r)
{
    int64_t tasks = kit::count(r, "tasks", 1);
    std::vector<int64_t> returned(tasks);
    tbb::task_group units;
    for (int64_t i = 0; i < tasks; i++)
        units.run([&r, &returned, i] {
            kit::unit counted(r, false);
            returned[i] = i;
        });
    units.wait();
    int64_t sum = 0;
    for (int64_t value : returned)
        sum += value;
    result_set(&r, "sum", sum);
}

const struct mechanism spawn_mechanisms[] = {
    kit::row("thread", kit::guarded<spawn_thread>),
    asio_row(kit::guarded<spawn_asio>),
    asio_mt_row(kit::guarded<spawn_asio>),
    kit::row("tbb", kit::guarded<spawn_tbb>),
    {},
};
