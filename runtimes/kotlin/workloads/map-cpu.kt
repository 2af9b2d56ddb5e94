// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
// evaluates a case multiplies, so evaluating the wrong cases gives a wrong sum.
package concbench.workloads

import concbench.coroutines.WorkerModes
import concbench.kit.Run
import concbench.kit.Workload

class MapCpu : Workload {
    override fun mechanisms() = WorkerModes.mechanisms(::mapCpu)

    private fun tarai(
        x: Long,
        y: Long,
        z: Long,
    ): Long = if (x <= y) y else tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))

    private fun mapCpu(run: Run) {
        val inputs = LongArray(run.count("cases")) { it.toLong() }
        var sum = 0L
        WorkerModes.run(run, { i -> (i + 1) * tarai(9, 4, 0) }) { apply -> sum += apply(inputs).sum() }
        run.result("sum", sum)
    }
}
