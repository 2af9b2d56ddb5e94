// Queue (workloads/queue.toml): per group one queue; its `producers` units
// each send 1..`items`, and once every producer is done the queue is closed
// (by the producer that finished last); its `consumers` units receive until
// it is closed and empty, counting and summing what they took.
package concbench.workloads

import concbench.coroutines.Waits
import concbench.coroutines.bounded
import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.channels.Channel
import java.util.concurrent.atomic.AtomicInteger

/**
 * The queue is a Channel of `capacity` items (for capacity 0, an unlimited one), closed where the
 * other kits put a stop token per consumer. blocked: sends that found it full and receives that
 * found it empty (Waits), each unit counting its own.
 */
class Queue : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::queue))

    private class Group(
        val items: Channel<Long>,
        val producing: AtomicInteger,
    )

    private fun queue(run: Run) {
        val groups = run.count("groups")
        val producers = run.count("producers")
        val perGroup = producers + run.count("consumers")
        val items = run.integer("items")
        val gs = List(groups) { Group(bounded(run.count("capacity")), AtomicInteger(producers)) }
        val blocked = Waits.forUnits(groups * perGroup)
        val count = LongArray(groups * perGroup)
        val sum = LongArray(groups * perGroup)
        run.timedOnDefault {
            launchUnits(run.units(), groups * perGroup) { unit ->
                val group = gs[unit / perGroup]
                if (unit % perGroup < producers) {
                    for (value in 1..items) {
                        blocked[unit].send(group.items, value)
                    }
                    if (group.producing.decrementAndGet() == 0) {
                        group.items.close()
                    }
                    return@launchUnits
                }
                while (true) {
                    val value = blocked[unit].receiveUntilClosed(group.items) ?: break
                    count[unit]++
                    sum[unit] += value
                }
            }
        }
        run.result("count", count.sum())
        run.result("sum", sum.sum())
        run.evidence("blocked", Waits.total(blocked))
    }
}
