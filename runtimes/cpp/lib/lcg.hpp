// The catalogue's portable random inputs (src/concbench/lcg.py): `count`
// draws in [lo, hi] from the LCG seeded with 42.
#pragma once

#include <cstdint>
#include <vector>

inline std::vector<int64_t> lcg_draws(int64_t count, int64_t lo, int64_t hi)
{
    std::vector<int64_t> draws;
    draws.reserve(count);
    for (int64_t x = 42, i = 0; i < count; i++) {
        x = (x * 1103515245 + 12345) % (int64_t(1) << 31);
        draws.push_back(lo + x % (hi - lo + 1));
    }
    return draws;
}
