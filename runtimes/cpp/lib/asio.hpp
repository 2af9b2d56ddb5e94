// The asio rows' event loop: one boost::asio::io_context per run, made
// before the clocks (a mechanism's prepare) and ended after them (finish).
//   asio:    the caller's thread runs it for the run (io_context::run,
//            which returns once no work is left);
//   asio_mt: one thread per core runs it from prepare to finish (a work
//            guard keeps them in run()), the caller waiting for the run's
//            main coroutine.
// Either way the run's work is a coroutine on the loop (the policy "the
// caller on an async runtime", docs/extending.md), so that its units are
// spawned and woken from the loop's own threads.
#pragma once

#include "lib/kit.hpp"

#include <boost/asio.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>

#include <atomic>
#include <limits>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using boost::system::error_code;

// A channel of values between coroutines, safe across the loop's threads.
template <class T>
using channel = asio::experimental::concurrent_channel<void(error_code, T)>;

// "One per core" (asio_mt's threads, the blocking pool's): one per CPU of
// the affinity mask (kit_cpus(), kit.h), not
// std::thread::hardware_concurrency(), which counts every online CPU (2 for
// a trial confined to 1).
inline unsigned per_core() { return unsigned(kit_cpus()); }

class loop
{
  public:
    // threads 0: the caller runs the loop; else that many threads do.
    loop(kit::run &r, unsigned threads) : r_(r), ctx(threads ? int(threads) : 1)
    {
        if (!threads)
            return;
        guard_.emplace(ctx.get_executor());
        for (unsigned i = 0; i < threads; i++)
            runners_.emplace_back([this] { ctx.run(); });
    }
    ~loop()
    {
        guard_.reset();
        for (auto &t : runners_)
            t.join();
    }

    // Runs `main` (a coroutine) as the run's task and awaits it; what it
    // throws is rethrown here.
    template <class Main>
    void run(Main main)
    {
        auto done = asio::co_spawn(ctx, std::move(main), asio::use_future);
        if (runners_.empty()) {
            ctx.restart();
            ctx.run();
        }
        done.get();
    }

    // The units of a loop run by the caller count themselves locally.
    kit::unit unit() { return kit::unit(r_, runners_.empty()); }
    bool single() const { return runners_.size() <= 1; }
    kit::run &r() { return r_; }

    // A thread pool for blocking calls (file I/O: a regular file has no
    // readiness to await), made before the clocks on the first call of
    // blocking() in a prepare; its threads are not units.
    void with_blocking_pool() { blocking_.emplace(per_core()); }
    // Runs `call` on the blocking pool and resumes the caller on its own
    // executor when it returns: the file API asio lacks without io_uring.
    template <class Call>
    awaitable<std::invoke_result_t<Call>> blocking(Call call)
    {
        using result = std::invoke_result_t<Call>;
        co_return co_await asio::co_spawn(
            *blocking_, [call = std::move(call)]() -> awaitable<result> { co_return call(); }, use_awaitable);
    }

  private:
    kit::run &r_;

  public:
    asio::io_context ctx;

  private:
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard_;
    std::vector<std::thread> runners_;
    std::optional<asio::thread_pool> blocking_;
};

// A count-down the loop's coroutines await: count_down() from any thread;
// the last one puts a token in a channel, which wait() takes if the count
// had not reached zero when it looked. The count and the channel are shared
// with every count_down() under way: a waiter that sees zero may go on and
// destroy the countdown (a round's latch, a finished group) while the last
// count_down(), on another of asio_mt's threads, is still sending its token.
class countdown
{
  public:
    countdown(loop &l, int64_t count) : state_(std::make_shared<state>(l, count)) {}
    void add(int64_t n) { state_->count.fetch_add(n); }
    void count_down()
    {
        std::shared_ptr<state> held = state_;   // taken before the count can reach zero
        if (held->count.fetch_sub(1) == 1)
            held->zero.try_send(error_code{}, 0);
    }
    awaitable<void> wait()
    {
        if (state_->count.load() > 0)
            co_await state_->zero.async_receive(use_awaitable);
    }

  private:
    struct state {
        state(loop &l, int64_t count) : count(count), zero(l.ctx, 1) {}
        std::atomic<int64_t> count;
        channel<int> zero;
    };
    std::shared_ptr<state> state_;
};

// A group of units spawned on the loop and awaited together: a countdown
// of them, plus one the group holds until join(), so that it cannot reach
// zero while units are still being spawned (those already spawned may all
// have ended). What a unit throws is rethrown by join().
class group
{
  public:
    explicit group(loop &l) : loop_(l), pending_(l, 1) {}

    template <class Body>
    void spawn(Body body)
    {
        pending_.add(1);
        asio::co_spawn(
            loop_.ctx,
            [this, body = std::move(body)]() mutable -> awaitable<void> {
                auto counted = loop_.unit();
                co_await body();
            },
            [this](std::exception_ptr e) {
                if (e) {
                    std::lock_guard held(error_lock_);
                    if (!error_)
                        error_ = e;
                }
                pending_.count_down();
            });
    }

    awaitable<void> join()
    {
        pending_.count_down();   // the group's own
        co_await pending_.wait();
        if (error_)
            std::rethrow_exception(error_);
    }

  private:
    loop &loop_;
    countdown pending_;
    std::mutex error_lock_;
    std::exception_ptr error_;
};

// A coroutine's yield: its continuation goes to the back of the loop's
// queue, so that every ready handler runs before it resumes.
inline awaitable<void> yield() { co_await asio::post(co_await asio::this_coro::executor, use_awaitable); }

// A value taken from a channel, and whether the take had to wait (found it
// empty); a send the same way (found it full).
inline awaitable<int64_t> take(channel<int64_t> &ch, int64_t &blocked)
{
    int64_t got = 0;
    if (ch.try_receive([&got](error_code, int64_t value) { got = value; }))
        co_return got;
    blocked++;
    co_return co_await ch.async_receive(use_awaitable);
}

inline awaitable<void> give(channel<int64_t> &ch, int64_t value, int64_t &blocked)
{
    if (ch.try_send(error_code{}, value))
        co_return;
    blocked++;
    co_await ch.async_send(error_code{}, value, use_awaitable);
}

// A channel's capacity for a workload's `capacity` (0: no bound).
inline size_t capacity_of(int64_t capacity) { return capacity ? size_t(capacity) : std::numeric_limits<size_t>::max(); }

// The two rows' prepare and finish (kit.h): the run's state is its loop,
// or a with_loop<T> where the workload prepares a T of its own too.
template <class T>
struct with_loop {
    loop l;
    T data;
    with_loop(kit::run &r, unsigned threads) : l(r, threads), data(r) {}
};

inline loop &loop_of(kit::run &r) { return kit::state<loop>(r); }

inline int one_thread(kit::run *r) { return kit::make<loop>(r, 0u); }
inline int thread_per_core(kit::run *r) { return kit::make<loop>(r, per_core()); }

// The table entries of both rows for one function.
constexpr mechanism asio_row(int (*fn)(kit::run *)) { return kit::row("asio", fn, one_thread, kit::unmake<loop>); }
constexpr mechanism asio_mt_row(int (*fn)(kit::run *))
{
    return kit::row("asio_mt", fn, thread_per_core, kit::unmake<loop>);
}

template <class T>
int one_thread_with(kit::run *r)
{
    return kit::make<with_loop<T>>(r, 0u);
}

template <class T>
int thread_per_core_with(kit::run *r)
{
    return kit::make<with_loop<T>>(r, per_core());
}

template <class T>
constexpr mechanism asio_row_with(int (*fn)(kit::run *))
{
    return kit::row("asio", fn, one_thread_with<T>, kit::unmake<with_loop<T>>);
}

template <class T>
constexpr mechanism asio_mt_row_with(int (*fn)(kit::run *))
{
    return kit::row("asio_mt", fn, thread_per_core_with<T>, kit::unmake<with_loop<T>>);
}
