// Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
// counter; each of `workers` units, in its iteration i of `iterations`,
// makes the subject, "foobar" * 100 followed by i (a new string each time,
// so that no engine answers from an earlier match), locks, reads the group's
// counter, matches /foo(.+)$/ against the subject, writes back the counter
// read plus the capture's length (597 plus i's digits) and unlocks.
package concbench.workloads

import concbench.coroutines.Waits
import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.sync.Mutex

/**
 * The engine is java.util.regex (a backtracking engine, as PCRE2 and Onigmo are; Kotlin's Regex is
 * a wrapper of it), the pattern compiled before the clocks. The lock is kotlinx.coroutines' Mutex,
 * which suspends a coroutine that finds it held. contended: locks whose tryLock failed, each then
 * taken with lock (Waits); each worker counts its own, summed after the join.
 */
class MutexCpu : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::mutexCpu))

    private class Group {
        val mutex = Mutex()
        var counter = 0L // guarded by mutex
    }

    private fun mutexCpu(run: Run) {
        val groups = run.count("groups")
        val workers = run.count("workers")
        val iterations = run.integer("iterations")
        val gs = List(groups) { Group() }
        val contended = Waits.forUnits(groups * workers)
        run.timedOnDefault {
            launchUnits(run.units(), groups * workers) { w ->
                val group = gs[w / workers]
                repeat(iterations.toInt()) { i ->
                    val subject = "$PREFIX$i"
                    contended[w].lock(group.mutex)
                    try {
                        val seen = group.counter
                        val capture = PATTERN.find(subject) ?: error("the pattern did not match")
                        group.counter = seen + capture.groups[1]!!.value.length
                    } finally {
                        group.mutex.unlock()
                    }
                }
            }
        }
        run.result("sum", gs.sumOf { it.counter })
        run.evidence("contended", Waits.total(contended))
    }

    private companion object {
        val PATTERN = Regex("foo(.+)$")
        val PREFIX = "foobar".repeat(100)
    }
}
