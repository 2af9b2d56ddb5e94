// The C++ kit's API over the C kit's (runtimes/c/kit.h, whose protocol code
// this kit links): parameters that throw instead of returning -1, a
// mechanism written as `void fn(run &)` that throws on failure, units
// counted by a guard, the rate loop over a lambda, and threads that count
// themselves as units.
#pragma once

#include "kit.h"

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace kit
{

using run = ::run;

// A failure already recorded in the run (kit.h's run_fail), or one to record.
struct failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(run &r) { throw failure(r.error); }

// A system call's failure, errno's text after the call's name.
[[noreturn]] inline void syserr(run &r, const char *call, int err)
{
    run_syserr(&r, call, err);
    fail(r);
}

inline int64_t count(run &r, const char *name, int64_t min = 0)
{
    int64_t value;
    if (param_int(&r, name, min, &value) < 0)
        fail(r);
    return value;
}

// The string parameter `name`, as the index of its value in `choices`.
template <size_t n>
int choice(run &r, const char *name, const char *const (&choices)[n])
{
    int index;
    if (param_choice(&r, name, choices, &index) < 0)
        fail(r);
    return index;
}

// The mechanism the C kit calls: `body` runs the run, and a failure thrown
// anywhere in it is the run's error.
template <void (*body)(run &)>
int guarded(run *r)
{
    try {
        body(*r);
        return run_failed(r) ? -1 : 0;
    } catch (const std::exception &e) {
        return run_fail(r, "%s", e.what());
    }
}

// A workload table's entry (kit.h's struct mechanism).
constexpr ::mechanism row(const char *name, int (*fn)(run *), int (*prepare)(run *) = nullptr,
                          int (*finish)(run *) = nullptr)
{
    return {name, fn, prepare, finish};
}

// A run's untimed state (kit.h's prepare and finish): a T made from the
// run (and `args`) before the clocks, deleted after them.
template <class T, class... Args>
int make(run *r, Args... args)
{
    try {
        r->state = new T(*r, args...);
        return 0;
    } catch (const std::exception &e) {
        return run_fail(r, "%s", e.what());
    }
}

template <class T>
int unmake(run *r)
{
    delete static_cast<T *>(r->state);
    r->state = nullptr;
    return 0;
}

template <class T>
T &state(run &r)
{
    return *static_cast<T *>(r.state);
}

// A unit's life: started as the guard is made, finished as it goes (kit.h).
// Units that all run on the run's calling thread count themselves locally.
class unit
{
  public:
    unit(run &r, bool local) : r_(r), local_(local) { local_ ? unit_started_local(&r_) : unit_started(&r_); }
    ~unit() { local_ ? unit_finished_local(&r_) : unit_finished(&r_); }
    unit(const unit &) = delete;
    unit &operator=(const unit &) = delete;

  private:
    run &r_;
    bool local_;
};

// One std::jthread as a unit: its body counts itself and records what it
// throws in the run, which the caller sees after the join (failed()).
template <class Body>
std::jthread thread(run &r, Body body)
{
    return std::jthread([&r, body = std::move(body)]() mutable {
        unit counted(r, false);
        try {
            body();
        } catch (const std::exception &e) {
            run_fail(&r, "%s", e.what());
        }
    });
}

// After the units are joined: a failure one of them recorded ends the run.
inline void check(run &r)
{
    if (run_failed(&r))
        fail(r);
}

// The rate loop (kit.h's run_rate): `batch()` runs one batch of operations;
// the clocks start here.
template <class Batch>
void rate(run &r, Batch &batch)
{
    auto step = [](run *rp, void *state) -> int {
        try {
            (*static_cast<Batch *>(state))();
            return 0;
        } catch (const std::exception &e) {
            return run_fail(rp, "%s", e.what());
        }
    };
    if (run_rate(&r, step, &batch) < 0)
        fail(r);
}

// The rate loop turned inside out (kit.h's rate_start, rate_next), for
// batches run inside a coroutine: `start()` starts the clocks; after each
// batch, `next()` says whether another is due.
struct rate_loop {
    run &r;
    int64_t batch;

    explicit rate_loop(run &r_) : r(r_), batch(count(r_, "batch", 1)) {}
    void start()
    {
        if (rate_start(&r) < 0)
            fail(r);
    }
    bool next() { return rate_next(&r); }
};

}   // namespace kit
