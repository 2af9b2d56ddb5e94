// Yield: one operation: the measured unit yields to its scheduler and is
// resumed. `partners` more units yield in a loop beside it. Every unit adds
// one to a shared turn counter each time it runs; the measured unit counts
// a yield as switched when the counter moved while it yielded, and counts
// its resumptions: the result.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <sched.h>

#include <atomic>
#include <cerrno>
#include <thread>
#include <vector>

// The measured unit's counts: `seen` is the counter after its last bump.
struct measured {
    std::atomic<int64_t> turn = 0;
    int64_t seen = 0, resumed = 0, switched = 0;

    void start() { seen = turn.fetch_add(1, std::memory_order_relaxed) + 1; }
    void resume()
    {
        int64_t now = turn.fetch_add(1, std::memory_order_relaxed);
        switched += now != seen;
        seen = now + 1;
        resumed++;
    }
    void report(kit::run &r)
    {
        result_set(&r, "count", resumed);
        evidence_set(&r, "switched", switched);
    }
};

// ---- thread: the measured unit is the thread running the kit's loop; its
// scheduler is the kernel's. With partners, it and they are pinned to the
// CPU it is on, for the run (prepare pins, finish restores the mask, both
// untimed; the partners inherit it), as c/pthread's yield is and for its
// reason: unpinned, a partner on the other core would move the counter in
// parallel and `switched` would claim switches that never happened.

struct pinned {
    cpu_set_t saved;
};

static int pin_prepare(kit::run *r)
{
    int64_t partners;
    if (param_int(r, "partners", 0, &partners) < 0)
        return -1;
    if (partners == 0)
        return 0;
    auto *pin = new pinned;
    r->state = pin;
    if (sched_getaffinity(0, sizeof pin->saved, &pin->saved) < 0)
        return run_syserr(r, "sched_getaffinity", errno);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0)
        return run_syserr(r, "sched_setaffinity", errno);
    return 0;
}

static int pin_finish(kit::run *r)
{
    auto *pin = static_cast<pinned *>(r->state);
    int rc = 0;
    if (pin && sched_setaffinity(0, sizeof pin->saved, &pin->saved) < 0)
        rc = run_syserr(r, "sched_setaffinity (restoring the mask)", errno);
    delete pin;
    r->state = nullptr;
    return rc;
}

static void yield_thread(kit::run &r)
{
    int64_t partners = kit::count(r, "partners");
    measured m;
    std::atomic<bool> stop = false;
    std::vector<std::jthread> units;
    for (int64_t i = 0; i < partners; i++)
        units.push_back(kit::thread(r, [&] {
            while (!stop.load(std::memory_order_relaxed)) {
                m.turn.fetch_add(1, std::memory_order_relaxed);
                std::this_thread::yield();
            }
        }));
    kit::rate_loop loop(r);
    auto batch = [&] {
        for (int64_t i = 0; i < loop.batch; i++) {
            std::this_thread::yield();
            m.resume();
        }
    };
    {
        kit::unit counted(r, false);   // the measured unit: this thread, for its loop
        m.start();
        kit::rate(r, batch);
    }
    stop = true;   // still timed: the partners are stopped and joined
    units.clear();
    kit::check(r);
    m.report(r);
}

// ---- asio: the measured unit is a coroutine running the kit's loop; a
// yield posts its continuation to the back of the loop's queue. asio_mt
// with partners runs its loop on one thread (prepare), asio's own means of
// confining it, so that the counter moves only when a yield let a partner
// run; without partners, a thread per core.

static int yield_mt_prepare(kit::run *r)
{
    int64_t partners;
    if (param_int(r, "partners", 0, &partners) < 0)
        return -1;
    return kit::make<loop>(r, partners ? 1u : per_core());
}

static void yield_asio(kit::run &r)
{
    int64_t partners = kit::count(r, "partners");
    loop &l = loop_of(r);
    measured m;
    std::atomic<bool> stop = false;
    kit::rate_loop rate(r);
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t i = 0; i < partners; i++)
            units.spawn([&]() -> awaitable<void> {
                while (!stop.load(std::memory_order_relaxed)) {
                    m.turn.fetch_add(1, std::memory_order_relaxed);
                    co_await yield();
                }
            });
        units.spawn([&]() -> awaitable<void> {
            m.start();
            rate.start();
            do {
                for (int64_t i = 0; i < rate.batch; i++) {
                    co_await yield();
                    m.resume();
                }
            } while (rate.next());
            stop = true;
        });
        co_await units.join();
    });
    m.report(r);
}

const struct mechanism yield_mechanisms[] = {
    kit::row("thread", kit::guarded<yield_thread>, pin_prepare, pin_finish),
    asio_row(kit::guarded<yield_asio>),
    kit::row("asio_mt", kit::guarded<yield_asio>, yield_mt_prepare, kit::unmake<loop>),
    {},
};
