// map-trivial, map-cpu, map-io and map-shrink, Pbt's worker modes (seed
// 001), alike for every mechanism: one operation is one evaluation, which
// the workload makes with the mechanism's map of its evaluate function
// over a list of inputs (results in the inputs' order). The kit's loop runs
// `batch` evaluations a batch.
#pragma once

#include "lib/kit.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

// thread: std::jthreads; tbb: parallel_for in this arena.
struct worker {
    tbb::task_arena *tbb = nullptr;
};

// `workers`, 0 meaning one per core: per CPU of the affinity mask
// (kit_cpus(), kit.h), not std::thread::hardware_concurrency(), which counts
// every online CPU (2 for a trial confined to 1).
inline int64_t workers_of(kit::run &r)
{
    int64_t workers = kit::count(r, "workers");
    return workers ? workers : int64_t(kit_cpus());
}

template <class In, class Out>
using apply_fn = std::function<std::vector<Out>(const std::vector<In> &)>;

// thread: `workers` std::jthreads made for each evaluation, no more than
// there are cases (as Parallel.map, which Pbt calls, does); unit w of n
// evaluates the cases w, w + n, ... into their slots.
template <class In, class Out, class Evaluate>
std::vector<Out> striped(kit::run &r, int64_t workers, const std::vector<In> &inputs, const Evaluate &evaluate)
{
    int64_t n = std::min<int64_t>(workers, int64_t(inputs.size()));
    std::vector<Out> results(inputs.size());
    {
        std::vector<std::jthread> units;
        for (int64_t w = 0; w < n; w++)
            units.push_back(kit::thread(r, [&, w] {
                for (size_t i = w; i < inputs.size(); i += n)
                    results[i] = evaluate(inputs[i]);
            }));
    }
    kit::check(r);
    return results;
}

// tbb: tbb::parallel_for over the cases, in a task_arena of `workers`
// threads made before the clocks. Its units are the threads that ran a
// case of the run (TBB's workers and the caller, which joins the arena's
// work): each is counted started the first time it runs one, and finished
// at the run's end, still timed (a thread_local mark of the run; a case
// costs a load and a compare).
class arena_units
{
  public:
    explicit arena_units(kit::run &r) : r_(r), generation_(++runs_) {}
    void mark()
    {
        if (seen_ != generation_) {
            seen_ = generation_;
            unit_started(&r_);
            threads_.fetch_add(1, std::memory_order_relaxed);
        }
    }
    ~arena_units()
    {
        for (int64_t i = threads_.load(); i > 0; i--)
            unit_finished(&r_);
    }

  private:
    kit::run &r_;
    int64_t generation_;
    std::atomic<int64_t> threads_ = 0;
    static inline std::atomic<int64_t> runs_ = 0;
    static inline thread_local int64_t seen_ = 0;
};

// The tbb row's arena, made before the clocks (prepare), ended after them.
struct arena {
    tbb::task_arena threads;
    explicit arena(kit::run &r) : threads(int(workers_of(r))) { threads.initialize(); }
};

// Runs the rate loop: `evaluation(apply)` once an operation, `apply` the
// map of `evaluate` that the worker makes.
template <class In, class Out, class Evaluate, class Evaluation>
void worker_modes(kit::run &r, worker w, Evaluate evaluate, Evaluation evaluation)
{
    int64_t workers = workers_of(r);
    kit::rate_loop loop(r);
    arena_units counted(r);
    apply_fn<In, Out> apply;
    if (!w.tbb)
        apply = [&](const std::vector<In> &inputs) { return striped<In, Out>(r, workers, inputs, evaluate); };
    else
        apply = [&](const std::vector<In> &inputs) {
            std::vector<Out> results(inputs.size());
            w.tbb->execute([&] {
                tbb::parallel_for(tbb::blocked_range<size_t>(0, inputs.size()), [&](const auto &range) {
                    counted.mark();
                    for (size_t i = range.begin(); i != range.end(); i++)
                        results[i] = evaluate(inputs[i]);
                });
            });
            return results;
        };
    auto batch = [&] {
        for (int64_t i = 0; i < loop.batch; i++)
            evaluation(apply);
    };
    kit::rate(r, batch);
}

// The table entries of a map workload's rows.
template <void (*fn)(kit::run &, worker)>
constexpr mechanism map_rows[] = {
    kit::row("thread", kit::guarded<[](kit::run &r) { fn(r, worker{}); }>),
    kit::row("tbb", kit::guarded<[](kit::run &r) { fn(r, worker{&kit::state<arena>(r).threads}); }>, kit::make<arena>,
             kit::unmake<arena>),

};
