// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
// `first` adds up f, `minimal` the upper bounds it ends with (101 each),
// and `candidates` the candidates the units evaluated.
#include "lib/lcg.hpp"
#include "lib/workermodes.hpp"

#include <algorithm>

// Bisects between 0 and the failing value: the least failing value, and
// the candidates evaluated.
static std::pair<int64_t, int64_t> shrink(int64_t failing, apply_fn<int64_t, char> &apply)
{
    int64_t passing = 0, evaluated = 0;
    while (failing - passing > 1) {
        std::vector<int64_t> candidates;
        for (int64_t k = 1; k <= 8; k++) {
            int64_t candidate = passing + (failing - passing) * k / 9;
            if (candidate != passing && std::find(candidates.begin(), candidates.end(), candidate) == candidates.end())
                candidates.push_back(candidate);
        }
        auto held = apply(candidates);
        evaluated += int64_t(held.size());
        size_t failed = std::find(held.begin(), held.end(), 0) - held.begin();
        if (failed > 0)
            passing = candidates[failed - 1];
        if (failed < candidates.size())
            failing = candidates[failed];
    }
    return {failing, evaluated};
}

static void map_shrink(kit::run &r, worker w)
{
    auto inputs = lcg_draws(kit::count(r, "cases", 1), -1'000'000, 1'000'000);
    int64_t first = 0, minimal = 0, candidates = 0;
    bool passed = false;
    worker_modes<int64_t, char>(
        r, w, [](int64_t x) -> char { return x <= 100; },
        [&](auto &apply) {
            auto held = apply(inputs);
            auto f = std::find(held.begin(), held.end(), 0) - held.begin();
            if (f == int64_t(held.size())) {
                passed = true;
                return;
            }
            auto [least, evaluated] = shrink(inputs[f], apply);
            first += f;
            minimal += least;
            candidates += evaluated;
        });
    if (passed)
        throw kit::failure("none of the cases fails the property");
    result_set(&r, "first", first);
    result_set(&r, "minimal", minimal);
    result_set(&r, "candidates", candidates);
}

const struct mechanism map_shrink_mechanisms[] = {map_rows<map_shrink>[0], map_rows<map_shrink>[1], {}};
