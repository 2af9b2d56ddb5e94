// Mere waiting: wait 0 (workloads/yield.toml): one operation: the measured
// unit yields to its scheduler (kotlinx.coroutines' yield) and is resumed.
// `partners` more units yield in a loop beside it until the time box is
// over; then they are stopped and joined (timed, as the end of the run).
// Every unit adds one to a shared turn counter each time it runs; a yield
// after which the counter has moved is `switched`. The measured unit counts
// its own resumptions: the result.
package concbench.workloads

import concbench.coroutines.launchUnit
import concbench.coroutines.launchUnits
import concbench.coroutines.onDefault
import concbench.coroutines.rateLoop
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.yield
import java.util.concurrent.atomic.AtomicLong

/**
 * A coroutine's yield dispatches it again: it goes to the back of its dispatcher's queue, and
 * another coroutine waiting there runs first. With partners every unit (and the caller) runs on
 * Dispatchers.Default.limitedParallelism(1), kotlinx.coroutines' own way to confine coroutines to
 * one thread at a time, so that a partner moves the turn counter only when a yield switches to it,
 * not in parallel on the other core (docs/extending.md, "Yield with partners"). With no partners
 * nothing is confined.
 */
class Yield : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::yields))

    /** The turn counter, and the measured unit's own counts. */
    private class Turns {
        val turn = AtomicLong()

        @Volatile var stop = false // partners: end the loop
        var seen = 0L // the counter after the measured unit's last bump
        var resumed = 0L
        var switched = 0L

        suspend fun partner() {
            while (!stop) {
                turn.incrementAndGet()
                yield()
            }
        }

        /** One operation of the measured unit. */
        suspend fun yieldOnce() {
            yield()
            val now = turn.getAndIncrement()
            if (now != seen) {
                switched++
            }
            seen = now + 1
            resumed++
        }
    }

    /**
     * The measured unit launches the partners, runs the kit's rate loop, then stops and joins them;
     * the clocks stop as it ends.
     */
    private fun yields(run: Run) {
        val batch = run.count("batch")
        val partners = run.count("partners")
        val turns = Turns()
        val dispatcher = if (partners == 0) Dispatchers.Default else Dispatchers.Default.limitedParallelism(1)
        onDefault(dispatcher) {
            launchUnit(run.units()) {
                val others = launchUnits(run.units(), partners) { turns.partner() }
                try {
                    turns.seen = turns.turn.getAndIncrement() + 1
                    run.rateLoop { repeat(batch) { turns.yieldOnce() } }
                } finally {
                    turns.stop = true
                    others.joinAll()
                }
            }.join()
            run.stopClocks()
        }
        run.result("count", turns.resumed)
        run.evidence("switched", turns.switched)
    }
}
