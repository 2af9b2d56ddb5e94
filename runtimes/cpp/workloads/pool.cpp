// Pool: `pool_size` workers serve `jobs` jobs; job j looks up key
// j mod `keys` in a table made before the clocks (key k holds 2k + 1) and
// returns its value. All jobs are submitted, then all awaited, and the
// values summed.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

#include <future>
#include <unordered_map>
#include <vector>

struct pool_run {
    int64_t pool_size, jobs;
    std::unordered_map<int64_t, int64_t> table;

    explicit pool_run(kit::run &r) : pool_size(kit::count(r, "pool_size", 1)), jobs(kit::count(r, "jobs", 1))
    {
        int64_t keys = kit::count(r, "keys", 1);
        table.reserve(keys);
        for (int64_t k = 0; k < keys; k++)
            table[k] = 2 * k + 1;
    }
    int64_t job(int64_t j) const { return table.at(j % int64_t(table.size())); }
};

// std::jthreads taking std::packaged_tasks from a blocking queue; an empty
// task stops a worker. The caller awaits each job's std::future.
static void pool_thread(kit::run &r)
{
    auto &p = kit::state<pool_run>(r);
    blocking_queue<std::packaged_task<int64_t()>> submitted;
    int64_t sum = 0;
    {
        std::vector<std::jthread> workers;
        for (int64_t w = 0; w < p.pool_size; w++)
            workers.push_back(kit::thread(r, [&submitted] {
                for (std::packaged_task<int64_t()> task; submitted.pop(task), task.valid();)
                    task();
            }));
        std::vector<std::future<int64_t>> results;
        results.reserve(p.jobs);
        for (int64_t j = 0; j < p.jobs; j++) {
            std::packaged_task<int64_t()> task([&p, j] { return p.job(j); });
            results.push_back(task.get_future());
            submitted.push(std::move(task));
        }
        for (auto &result : results)
            sum += result.get();
        for (int64_t w = 0; w < p.pool_size; w++)
            submitted.push({});
    }
    kit::check(r);
    result_set(&r, "sum", sum);
}

// `pool_size` coroutines taking job numbers from a channel (no bound), each
// writing its job's value in the job's slot; a negative number stops a
// worker. Submitted, then awaited: the workers, once every job is sent.
static void pool_asio(kit::run &r)
{
    auto &[l, p] = kit::state<with_loop<pool_run>>(r);
    channel<int64_t> submitted(l.ctx, capacity_of(0));
    std::vector<int64_t> values(p.jobs);
    l.run([&]() -> awaitable<void> {
        group workers(l);
        for (int64_t w = 0; w < p.pool_size; w++)
            workers.spawn([&]() -> awaitable<void> {
                for (;;) {
                    int64_t j = co_await submitted.async_receive(use_awaitable);
                    if (j < 0)
                        break;
                    values[j] = p.job(j);
                }
            });
        for (int64_t j = 0; j < p.jobs; j++)
            co_await submitted.async_send(error_code{}, j, use_awaitable);
        for (int64_t w = 0; w < p.pool_size; w++)
            co_await submitted.async_send(error_code{}, -1, use_awaitable);
        co_await workers.join();
    });
    int64_t sum = 0;
    for (int64_t value : values)
        sum += value;
    result_set(&r, "sum", sum);
}

const struct mechanism pool_mechanisms[] = {
    kit::row("thread", kit::guarded<pool_thread>, kit::make<pool_run>, kit::unmake<pool_run>),
    asio_row_with<pool_run>(kit::guarded<pool_asio>),
    asio_mt_row_with<pool_run>(kit::guarded<pool_asio>),
    {},
};
