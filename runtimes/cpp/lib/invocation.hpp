// invoke and invoke-waiting, written once: one operation starts a unit
// whose body increments a counter, and gets its result, as `mode` says:
//   await:  start a unit, await it, then the next;
//   batch:  start a whole batch, then await them all;
//   forget: start a whole batch, then yield once so that they run (the
//           seed's call_and_forget + `wait 0`); the run awaits the rest at
//           its end.
// A waiting unit yields to its scheduler once before it increments (the
// seed's `wait 0` inside the proc). The count is kept by the bodies.
#pragma once

#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <semaphore>
#include <thread>
#include <vector>

enum class mode { await, batch, forget };

inline mode mode_of(kit::run &r) { return mode(kit::choice(r, "mode", {"await", "batch", "forget", nullptr})); }

// A std::thread per unit; forgotten ones are detached and post a
// std::counting_semaphore as their last act, which the run's end takes
// once for each.
template <bool waits>
void invocation_thread(kit::run &r)
{
    mode m = mode_of(r);
    std::atomic<int64_t> count = 0;
    int64_t forgotten = 0;
    std::counting_semaphore<> finished(0);
    auto body = [&r, &count] {
        kit::unit counted(r, false);
        if (waits)
            std::this_thread::yield();
        count.fetch_add(1, std::memory_order_relaxed);
    };
    kit::rate_loop loop(r);
    std::vector<std::thread> started;
    auto batch = [&] {
        switch (m) {
        case mode::await:
            for (int64_t i = 0; i < loop.batch; i++)
                std::thread(body).join();
            break;
        case mode::batch:
            for (int64_t i = 0; i < loop.batch; i++)
                started.emplace_back(body);
            for (auto &t : started)
                t.join();
            started.clear();
            break;
        case mode::forget:
            for (int64_t i = 0; i < loop.batch; i++, forgotten++)
                std::thread([&] {
                    body();
                    finished.release();
                }).detach();
            std::this_thread::yield();
            break;
        }
    };
    kit::rate(r, batch);
    for (int64_t i = 0; i < forgotten; i++)
        finished.acquire();
    result_set(&r, "count", count);
}

// A coroutine per unit (co_spawn), the kit's loop inside the run's own
// coroutine; await is co_spawn's use_awaitable, batch and forget a group
// (forget's yield a post to the loop).
template <bool waits>
void invocation_asio(kit::run &r)
{
    mode m = mode_of(r);
    loop &l = loop_of(r);
    std::atomic<int64_t> count = 0;
    auto body = [&l, &count]() -> awaitable<void> {
        if (waits)
            co_await yield();
        count.fetch_add(1, std::memory_order_relaxed);
    };
    kit::rate_loop rate(r);
    l.run([&]() -> awaitable<void> {
        group forgotten(l);
        rate.start();
        do {
            if (m == mode::await) {
                for (int64_t i = 0; i < rate.batch; i++)
                    co_await asio::co_spawn(
                        l.ctx,
                        [&]() -> awaitable<void> {
                            auto counted = l.unit();
                            co_await body();
                        },
                        use_awaitable);
            } else if (m == mode::batch) {
                group units(l);
                for (int64_t i = 0; i < rate.batch; i++)
                    units.spawn(body);
                co_await units.join();
            } else {
                for (int64_t i = 0; i < rate.batch; i++)
                    forgotten.spawn(body);
                co_await yield();
            }
        } while (rate.next());
        co_await forgotten.join();
    });
    result_set(&r, "count", count);
}

// A tbb::task_group task per unit: await waits for each, batch for the
// batch; forget leaves the batch to TBB's workers (a task cannot yield)
// and waits at the run's end.
inline void invocation_tbb(kit::run &r)
{
    mode m = mode_of(r);
    std::atomic<int64_t> count = 0;
    auto body = [&r, &count] {
        kit::unit counted(r, false);
        count.fetch_add(1, std::memory_order_relaxed);
    };
    kit::rate_loop loop(r);
    tbb::task_group units;
    auto batch = [&] {
        for (int64_t i = 0; i < loop.batch; i++) {
            units.run(body);
            if (m == mode::await)
                units.wait();
        }
        if (m == mode::batch)
            units.wait();
    };
    kit::rate(r, batch);
    units.wait();
    result_set(&r, "count", count);
}
