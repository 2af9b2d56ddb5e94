// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
// evaluates a case multiplies, so evaluating the wrong cases gives a wrong
// sum.
#include "lib/workermodes.hpp"

#include <numeric>

static int64_t tarai(int64_t x, int64_t y, int64_t z)
{
    if (x <= y)
        return y;
    return tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y));
}

// volatile: the arguments are constants, and a call the optimizer could
// fold (or hoist out of the loop) would not make its 55,229 calls.
static volatile int64_t nine = 9, four = 4, zero = 0;

static void map_cpu(kit::run &r, worker w)
{
    std::vector<int64_t> inputs(kit::count(r, "cases", 1));
    std::iota(inputs.begin(), inputs.end(), 0);
    int64_t sum = 0;
    worker_modes<int64_t, int64_t>(
        r, w, [](int64_t i) { return (i + 1) * tarai(nine, four, zero); },
        [&](auto &apply) {
            for (int64_t value : apply(inputs))
                sum += value;
        });
    result_set(&r, "sum", sum);
}

const struct mechanism map_cpu_mechanisms[] = {map_rows<map_cpu>[0], map_rows<map_cpu>[1], {}};
