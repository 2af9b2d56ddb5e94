// Mutex-cpu: per group one mutex and one counter; each of its `workers`
// units, `iterations` times, its iteration i counting from 0: make the
// subject "foobar" x 100 followed by i in decimal (a new std::string, before
// the lock), lock, read the counter, match /foo(.+)$/ against the subject,
// write back the counter read plus the capture's length (597 plus i's
// digits), unlock. contended: acquisitions whose try_lock failed before the
// blocking lock.
//
// The engine is PCRE2 with its JIT (PCRE2_JIT_COMPLETE), as the C kit's
// mutex-cpu matches, so that C and C++ compare like for like: std::regex
// (libstdc++'s backtracking interpreter) took 45 times as long, and the
// cell measured it rather than the lock.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <memory>
#include <mutex>
#include <pcre2.h>
#include <string>
#include <string_view>
#include <vector>

// /foo(.+)$/, compiled and JIT-compiled before the clocks (the run's
// prepare); read-only, so the units share it, each matching into match data
// of its own.
class capture_pattern
{
  public:
    explicit capture_pattern(kit::run &)
    {
        int error;
        PCRE2_SIZE offset;
        code_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>("foo(.+)$"), PCRE2_ZERO_TERMINATED, 0, &error, &offset,
                                  nullptr));
        if (!code_)
            throw kit::failure("pcre2_compile: error " + std::to_string(error));
        if (pcre2_jit_compile(code_.get(), PCRE2_JIT_COMPLETE) != 0)
            throw kit::failure("pcre2_jit_compile failed");
    }

    using match_data = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;

    match_data new_match() const
    {
        match_data match(pcre2_match_data_create_from_pattern(code_.get(), nullptr), pcre2_match_data_free);
        if (!match)
            throw std::bad_alloc();
        return match;
    }

    // The length of the first capture in `subject`.
    int64_t capture_length(std::string_view subject, pcre2_match_data *match) const
    {
        int rc = pcre2_match(code_.get(), reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0, match,
                             nullptr);
        if (rc <= 1)
            throw kit::failure(rc == PCRE2_ERROR_NOMATCH ? "pcre2_match: no match" : "pcre2_match: failed");
        const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match);
        return int64_t(ovector[3] - ovector[2]);
    }

  private:
    std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)> code_{nullptr, pcre2_code_free};
};

// "foobar" x 100, made once, at the program's start.
static const std::string prefix = [] {
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
static int64_t work(const capture_pattern &pattern, counted_group &g, int64_t iterations)
{
    int64_t contended = 0;
    auto match = pattern.new_match();
    for (int64_t i = 0; i < iterations; i++) {
        std::string subject = prefix + std::to_string(i);
        std::unique_lock held(g.lock, std::try_to_lock);
        if (!held.owns_lock()) {
            contended++;
            held.lock();
        }
        int64_t read = g.counter;
        g.counter = read + pattern.capture_length(subject, match.get());
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
    const auto &pattern = kit::state<capture_pattern>(r);
    shape s(r);
    std::vector<counted_group> groups(s.groups);
    std::vector<int64_t> contended(s.groups * s.workers);
    {
        std::vector<std::jthread> units;
        for (int64_t u = 0; u < s.groups * s.workers; u++)
            units.push_back(
                kit::thread(r, [&, u] { contended[u] = work(pattern, groups[u / s.workers], s.iterations); }));
    }
    kit::check(r);
    report(r, groups, contended);
}

// Coroutines with no await inside the lock: std::mutex, as for threads.
static void mutex_cpu_asio(kit::run &r)
{
    auto &[l, pattern] = kit::state<with_loop<capture_pattern>>(r);
    shape s(r);
    std::vector<counted_group> groups(s.groups);
    std::vector<int64_t> contended(s.groups * s.workers);
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t u = 0; u < s.groups * s.workers; u++)
            units.spawn([&, u]() -> awaitable<void> {
                contended[u] = work(pattern, groups[u / s.workers], s.iterations);
                co_return;
            });
        co_await units.join();
    });
    report(r, groups, contended);
}

const struct mechanism mutex_cpu_mechanisms[] = {
    kit::row("thread", kit::guarded<mutex_cpu_thread>, kit::make<capture_pattern>, kit::unmake<capture_pattern>),
    asio_row_with<capture_pattern>(kit::guarded<mutex_cpu_asio>),
    asio_mt_row_with<capture_pattern>(kit::guarded<mutex_cpu_asio>),
    {},
};
