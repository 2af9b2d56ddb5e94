// Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
// next. The first starts a token at count 0; every pass adds one. When the
// token reaches the first unit for the `laps`-th time, the first unit stops
// it and reports its count; then every unit is stopped and awaited.
package concbench.workloads

import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.channels.Channel

/**
 * A coroutine per node, each receiving the token from an unbuffered Channel of its own (a
 * rendezvous) and sending it on to the next node's; the first node closes the others' channels,
 * which ends their loops.
 */
class Ring : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::ring))

    private fun ring(run: Run) {
        val nodes = run.count("nodes")
        val laps = run.integer("laps")
        val inbox = List(nodes) { Channel<Long>() }
        var hops = 0L
        run.timedOnDefault {
            launchUnits(run.units(), nodes) { node ->
                if (node == 0) {
                    hops = lead(inbox, laps)
                } else {
                    for (count in inbox[node]) {
                        inbox[(node + 1) % nodes].send(count + 1)
                    }
                }
            }
        }
        run.result("hops", hops)
    }

    /** The first node: starts the token, stops it after its laps, then stops the ring. */
    private suspend fun lead(
        inbox: List<Channel<Long>>,
        laps: Long,
    ): Long {
        var count = 0L
        inbox[1].send(1)
        for (lap in 1..laps) {
            count = inbox[0].receive()
            if (lap < laps) {
                inbox[1].send(count + 1)
            }
        }
        inbox.drop(1).forEach { it.close() }
        return count
    }
}
