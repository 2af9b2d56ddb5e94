// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1;
// the result is the sum.
#include "lib/lcg.hpp"
#include "lib/workermodes.hpp"

static void map_trivial(kit::run &r, worker w)
{
    auto inputs = lcg_draws(kit::count(r, "cases", 1), -1'000'000, 1'000'000);
    int64_t sum = 0;
    worker_modes<int64_t, int64_t>(
        r, w, [](int64_t x) { return x + 1; },
        [&](auto &apply) {
            for (int64_t value : apply(inputs))
                sum += value;
        });
    result_set(&r, "sum", sum);
}

const struct mechanism map_trivial_mechanisms[] = {map_rows<map_trivial>[0], map_rows<map_trivial>[1], {}};
