// Mutex-cpu: per group one mutex and one counter; each of its `workers`
// units, `iterations` times: lock, read the counter, match /foo(.+)$/
// against "foobar" x 100, write back the counter read plus the capture's
// length (597), unlock. contended: acquisitions whose try_lock failed
// before the blocking lock.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <mutex>
#include <regex>
#include <string>
#include <vector>

// Compiled once, before any clock (the program's start).
static const std::regex pattern("foo(.+)$");
static const std::string subject = [] {
    std::string s;
    for (int i = 0; i < 100; i++)
        s += "foobar";
    return s;
}();

struct shape {
    int64_t groups, workers, iterations;

    explicit shape(kit::run &r)
        : groups(kit::count(r, "groups", 1)), workers(kit::count(r, "workers", 1)),
          iterations(kit::count(r, "iterations", 1))
    {
    }
};

struct counted_group {
    std::mutex lock;
    int64_t counter = 0;
};

// One unit's iterations on its group; the acquisitions that found the lock
// held.
static int64_t work(counted_group &g, int64_t iterations)
{
    int64_t contended = 0;
    std::smatch match;
    for (int64_t i = 0; i < iterations; i++) {
        std::unique_lock held(g.lock, std::try_to_lock);
        if (!held.owns_lock()) {
            contended++;
            held.lock();
        }
        int64_t read = g.counter;
        if (!std::regex_search(subject, match, pattern))
            throw std::runtime_error("the pattern did not match");
        g.counter = read + match.length(1);
    }
    return contended;
}

static void report(kit::run &r, const std::vector<counted_group> &groups, const std::vector<int64_t> &contended)
{
    int64_t sum = 0, found_held = 0;
    for (const auto &g : groups)
        sum += g.counter;
    for (int64_t n : contended)
        found_held += n;
    result_set(&r, "sum", sum);
    evidence_set(&r, "contended", found_held);
}

static void mutex_cpu_thread(kit::run &r)
{
    shape s(r);
    std::vector<counted_group> groups(s.groups);
    std::vector<int64_t> contended(s.groups * s.workers);
    {
        std::vector<std::jthread> units;
        for (int64_t u = 0; u < s.groups * s.workers; u++)
            units.push_back(kit::thread(r, [&, u] { contended[u] = work(groups[u / s.workers], s.iterations); }));
    }
    kit::check(r);
    report(r, groups, contended);
}

// Coroutines with no await inside the lock: std::mutex, as for threads.
static void mutex_cpu_asio(kit::run &r)
{
    shape s(r);
    loop &l = loop_of(r);
    std::vector<counted_group> groups(s.groups);
    std::vector<int64_t> contended(s.groups * s.workers);
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t u = 0; u < s.groups * s.workers; u++)
            units.spawn([&, u]() -> awaitable<void> {
                contended[u] = work(groups[u / s.workers], s.iterations);
                co_return;
            });
        co_await units.join();
    });
    report(r, groups, contended);
}

const struct mechanism mutex_cpu_mechanisms[] = {
    kit::row("thread", kit::guarded<mutex_cpu_thread>),
    asio_row(kit::guarded<mutex_cpu_asio>),
    asio_mt_row(kit::guarded<mutex_cpu_asio>),
    {},
};
