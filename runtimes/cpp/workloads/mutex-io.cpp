// Mutex-io: per group one mutex, one file (made in the scratch directory
// before the clocks) and the file's end; each of its `workers` units,
// `iterations` times: lock, read the end, write `size` bytes there (one
// pwrite), store the end plus `size`, unlock. The result is the sum of the
// files' sizes, taken after the clocks, when the files are removed.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct files {
    int64_t groups, workers, iterations;
    std::string block;
    std::vector<int> fds;
    std::vector<std::string> paths;

    explicit files(kit::run &r)
        : groups(kit::count(r, "groups", 1)), workers(kit::count(r, "workers", 1)),
          iterations(kit::count(r, "iterations", 1)), block(kit::count(r, "size", 1), 'x')
    {
        for (int64_t g = 0; g < groups; g++) {
            paths.push_back(std::string(r.scratch) + "/mutex-io-" + std::to_string(g));
            int fd = open(paths.back().c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
            if (fd < 0)
                kit::syserr(r, "open", errno);
            fds.push_back(fd);
        }
    }
    ~files()
    {
        for (int fd : fds)
            close(fd);
        for (auto &path : paths)
            unlink(path.c_str());
    }
    void write_at(kit::run &r, int64_t g, int64_t end) const
    {
        if (pwrite(fds[g], block.data(), block.size(), end) != ssize_t(block.size()))
            kit::syserr(r, "pwrite", errno);
    }
};

// After the clocks: the files' sizes, then the files removed.
template <class State, files &(*files_of)(State &)>
int files_finish(kit::run *r)
{
    auto *s = static_cast<State *>(r->state);
    if (s && !run_failed(r)) {
        int64_t bytes = 0;
        for (int fd : files_of(*s).fds) {
            struct stat st;
            if (fstat(fd, &st) < 0)
                return run_syserr(r, "fstat", errno);
            bytes += st.st_size;
        }
        result_set(r, "bytes", bytes);
    }
    return kit::unmake<State>(r);
}

static files &plain(files &f) { return f; }
static files &looped(with_loop<files> &s) { return s.data; }

static void mutex_io_thread(kit::run &r)
{
    auto &f = kit::state<files>(r);
    std::vector<std::mutex> locks(f.groups);
    std::vector<int64_t> ends(f.groups), contended(f.groups * f.workers);
    {
        std::vector<std::jthread> units;
        for (int64_t u = 0; u < f.groups * f.workers; u++)
            units.push_back(kit::thread(r, [&, u] {
                int64_t g = u / f.workers;
                for (int64_t i = 0; i < f.iterations; i++) {
                    std::unique_lock held(locks[g], std::try_to_lock);
                    if (!held.owns_lock()) {
                        contended[u]++;
                        held.lock();
                    }
                    f.write_at(r, g, ends[g]);
                    ends[g] += int64_t(f.block.size());
                }
            }));
    }
    kit::check(r);
    int64_t found_held = 0;
    for (int64_t n : contended)
        found_held += n;
    evidence_set(&r, "contended", found_held);
}

// The lock is held across an await, so it is asio's: a channel of one
// slot (asio has no mutex), taken by a send and given back by a receive;
// each pwrite runs on the loop's blocking pool (a regular file has no
// readiness to await) while the coroutine awaits it.
static void mutex_io_asio(kit::run &r)
{
    auto &[l, f] = kit::state<with_loop<files>>(r);
    std::vector<std::unique_ptr<channel<int>>> locks;
    for (int64_t g = 0; g < f.groups; g++)
        locks.push_back(std::make_unique<channel<int>>(l.ctx, 1));
    std::vector<int64_t> ends(f.groups), contended(f.groups * f.workers);
    l.run([&]() -> awaitable<void> {
        group units(l);
        for (int64_t u = 0; u < f.groups * f.workers; u++)
            units.spawn([&, u]() -> awaitable<void> {
                int64_t g = u / f.workers;
                auto &lock = *locks[g];
                for (int64_t i = 0; i < f.iterations; i++) {
                    if (!lock.try_send(error_code{}, 0)) {
                        contended[u]++;
                        co_await lock.async_send(error_code{}, 0, use_awaitable);
                    }
                    int64_t end = ends[g];
                    co_await l.blocking([&r, &f, g, end] { f.write_at(r, g, end); });
                    ends[g] = end + int64_t(f.block.size());
                    lock.try_receive([](error_code, int) {});
                }
            });
        co_await units.join();
    });
    int64_t found_held = 0;
    for (int64_t n : contended)
        found_held += n;
    evidence_set(&r, "contended", found_held);
}

static int with_pool_one_thread(kit::run *r)
{
    int rc = one_thread_with<files>(r);
    if (rc == 0)
        kit::state<with_loop<files>>(*r).l.with_blocking_pool();
    return rc;
}

static int with_pool_per_core(kit::run *r)
{
    int rc = thread_per_core_with<files>(r);
    if (rc == 0)
        kit::state<with_loop<files>>(*r).l.with_blocking_pool();
    return rc;
}

const struct mechanism mutex_io_mechanisms[] = {
    kit::row("thread", kit::guarded<mutex_io_thread>, kit::make<files>, files_finish<files, plain>),
    kit::row("asio", kit::guarded<mutex_io_asio>, with_pool_one_thread, files_finish<with_loop<files>, looped>),
    kit::row("asio_mt", kit::guarded<mutex_io_asio>, with_pool_per_core, files_finish<with_loop<files>, looped>),
    {},
};
