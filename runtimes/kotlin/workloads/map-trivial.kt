// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an LCG integer x in [-1,000,000, 1,000,000] and computes x + 1; the
// result is the sum.
package concbench.workloads

import concbench.coroutines.WorkerModes
import concbench.kit.Run
import concbench.kit.Workload
import concbench.lib.Lcg

class MapTrivial : Workload {
    override fun mechanisms() = WorkerModes.mechanisms(::mapTrivial)

    private fun mapTrivial(run: Run) {
        val inputs = Lcg.draws(run.count("cases"), -1_000_000, 1_000_000)
        var sum = 0L
        WorkerModes.run(run, { x -> x + 1 }) { apply -> sum += apply(inputs).sum() }
        run.result("sum", sum)
    }
}
