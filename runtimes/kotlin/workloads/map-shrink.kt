// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
// `first` adds up f, `minimal` the upper bounds it ends with (101 each), and
// `candidates` the candidates the units evaluated.
package concbench.workloads

import concbench.coroutines.Apply
import concbench.coroutines.WorkerModes
import concbench.kit.Run
import concbench.kit.Workload
import concbench.lib.Lcg

class MapShrink : Workload {
    override fun mechanisms() = WorkerModes.mechanisms(::mapShrink)

    /** A shrink's outcome: the least failing value, and the candidates evaluated. */
    private data class Shrunk(
        val least: Long,
        val evaluated: Long,
    )

    private fun mapShrink(run: Run) {
        val inputs = Lcg.draws(run.count("cases"), -1_000_000, 1_000_000)
        var first = 0L
        var minimal = 0L
        var candidates = 0L
        WorkerModes.run(run, { x -> if (x <= 100) HOLDS else FAILS }) { apply ->
            val f = apply(inputs).indexOf(FAILS)
            check(f >= 0) { "none of the cases fails the property" }
            val shrunk = shrink(inputs[f], apply)
            first += f
            minimal += shrunk.least
            candidates += shrunk.evaluated
        }
        run.result("first", first)
        run.result("minimal", minimal)
        run.result("candidates", candidates)
    }

    /** Bisects between 0, which passes, and the failing value. */
    private suspend fun shrink(
        failingValue: Long,
        apply: Apply,
    ): Shrunk {
        var failing = failingValue
        var passing = 0L
        var evaluated = 0L
        while (failing - passing > 1) {
            val from = passing
            val span = failing - passing
            val candidates =
                (1L..8L)
                    .map { k -> from + span * k / 9 }
                    .filter { it != from }
                    .distinct()
                    .toLongArray()
            val held = apply(candidates)
            evaluated += held.size
            val failed = held.indexOf(FAILS).takeIf { it >= 0 } ?: candidates.size // -1: every one passes
            if (failed > 0) {
                passing = candidates[failed - 1]
            }
            if (failed < candidates.size) {
                failing = candidates[failed]
            }
        }
        return Shrunk(failing, evaluated)
    }

    private companion object {
        // A case's result: whether the property holds for its input.
        const val HOLDS = 1L
        const val FAILS = 0L
    }
}
