// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
package concbench.workloads

import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.channels.Channel

/**
 * kotlinx.coroutines' fan-out: `pool_size` worker coroutines receiving job numbers from one
 * unlimited Channel (so that submitting never waits for a worker), each job's value written into
 * its own slot; the channel, closed after the jobs, ends them.
 */
class Pool : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::pool))

    private fun pool(run: Run) {
        val poolSize = run.count("pool_size")
        val jobs = run.count("jobs")
        val keys = run.count("keys")
        val table = HashMap<Int, Long>()
        for (k in 0 until keys) {
            table[k] = 2L * k + 1
        }
        val values = LongArray(jobs)
        run.timedOnDefault {
            val queue = Channel<Int>(Channel.UNLIMITED)
            launchUnits(run.units(), poolSize) {
                for (job in queue) {
                    values[job] = table.getValue(job % keys)
                }
            }
            for (job in 0 until jobs) {
                queue.send(job)
            }
            queue.close()
        }
        run.result("sum", values.sum())
    }
}
