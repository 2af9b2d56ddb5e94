// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the clocks, and
// appends as many characters as its LCG draw in [0, 10] says; the result
// is the sum of the lengths.
#include "lib/asio.hpp"
#include "lib/lcg.hpp"
#include "lib/workermodes.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

// The file, written before the clocks and removed after them.
struct data_file {
    std::string path;
    std::vector<int64_t> draws;

    explicit data_file(kit::run &r)
        : path(std::string(r.scratch) + "/map-io"), draws(lcg_draws(kit::count(r, "cases", 1), 0, 10))
    {
        std::ofstream(path, std::ios::binary) << std::string(kit::count(r, "file_size", 1), 'x');
    }
    ~data_file() { std::remove(path.c_str()); }

    // A case: the file read whole (std::ifstream), extended by its draw.
    int64_t evaluate(int64_t draw) const
    {
        std::ifstream in(path, std::ios::binary);
        std::string content(std::istreambuf_iterator<char>(in), {});
        if (!in && !in.eof())
            throw kit::failure("reading " + path);
        content.append(draw, 'x');
        return int64_t(content.size());
    }
};

struct threads_state : data_file {
    using data_file::data_file;
};

struct tbb_state : arena, data_file {
    explicit tbb_state(kit::run &r) : arena(r), data_file(r) {}
};

static void map_io(kit::run &r, worker w, const data_file &f)
{
    int64_t length = 0;
    worker_modes<int64_t, int64_t>(
        r, w, [&f](int64_t draw) { return f.evaluate(draw); },
        [&](auto &apply) {
            for (int64_t n : apply(f.draws))
                length += n;
        });
    result_set(&r, "length", length);
}

static void map_io_thread(kit::run &r) { map_io(r, worker{}, kit::state<threads_state>(r)); }

static void map_io_tbb(kit::run &r)
{
    auto &s = kit::state<tbb_state>(r);
    map_io(r, worker{&s.threads}, s);
}

// `workers` coroutines per evaluation (0: one per core), no more than there
// are cases; unit w of n evaluates the cases w, w + n, ..., each read on
// the loop's blocking pool (a regular file has no readiness to await,
// docs/extending.md) while the coroutine awaits it. Each unit sums its
// cases' lengths and the evaluation the units' sums.
static void map_io_asio(kit::run &r)
{
    auto &[l, f] = kit::state<with_loop<data_file>>(r);
    int64_t n = std::min<int64_t>(workers_of(r), int64_t(f.draws.size()));
    std::atomic<int64_t> length = 0;
    kit::rate_loop rate(r);
    l.run([&]() -> awaitable<void> {
        rate.start();
        do {
            for (int64_t i = 0; i < rate.batch; i++) {
                group units(l);
                for (int64_t w = 0; w < n; w++)
                    units.spawn([&, w]() -> awaitable<void> {
                        int64_t sum = 0;
                        for (size_t c = w; c < f.draws.size(); c += n)
                            sum += co_await l.blocking([&f, draw = f.draws[c]] { return f.evaluate(draw); });
                        length.fetch_add(sum, std::memory_order_relaxed);
                    });
                co_await units.join();
            }
        } while (rate.next());
    });
    result_set(&r, "length", length);
}

template <unsigned (*threads)()>
static int with_pool(kit::run *r)
{
    int rc = kit::make<with_loop<data_file>>(r, threads());
    if (rc == 0)
        kit::state<with_loop<data_file>>(*r).l.with_blocking_pool();
    return rc;
}

static unsigned caller() { return 0; }

const struct mechanism map_io_mechanisms[] = {
    kit::row("thread", kit::guarded<map_io_thread>, kit::make<threads_state>, kit::unmake<threads_state>),
    kit::row("tbb", kit::guarded<map_io_tbb>, kit::make<tbb_state>, kit::unmake<tbb_state>),
    kit::row("asio", kit::guarded<map_io_asio>, with_pool<caller>, kit::unmake<with_loop<data_file>>),
    kit::row("asio_mt", kit::guarded<map_io_asio>, with_pool<per_core>, kit::unmake<with_loop<data_file>>),
    {},
};
