// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
// each pair a pinger sends a count, starting at 0, to its ponger, which sends
// back the count plus one; the pinger sends that count plus one again, until
// it has had `rounds` replies. Each pinger then stops its ponger and reports
// the last count it received; the caller awaits every unit and sums them.
package concbench.workloads

import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.channels.Channel

/**
 * As ring's coroutines: per pair two unbuffered Channels, one each way; the pinger closes its
 * ping channel, which ends the ponger's loop. Unit 2p is pair p's pinger, unit 2p + 1 its ponger.
 */
class PingPong : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::pingPong))

    private fun pingPong(run: Run) {
        val pairs = run.count("pairs")
        val rounds = run.integer("rounds")
        val pings = List(pairs) { Channel<Long>() }
        val pongs = List(pairs) { Channel<Long>() }
        val last = LongArray(pairs) // each pinger's last count
        run.timedOnDefault {
            launchUnits(run.units(), 2 * pairs) { unit ->
                val pair = unit / 2
                if (unit % 2 == 0) {
                    last[pair] = ping(pings[pair], pongs[pair], rounds)
                } else {
                    for (count in pings[pair]) {
                        pongs[pair].send(count + 1)
                    }
                }
            }
        }
        run.result("count", last.sum())
    }

    /** The pinger: sends a count and awaits its reply `rounds` times, then stops its ponger. */
    private suspend fun ping(
        ping: Channel<Long>,
        pong: Channel<Long>,
        rounds: Long,
    ): Long {
        var send = 0L
        var received = 0L
        repeat(rounds.toInt()) {
            ping.send(send)
            received = pong.receive()
            send = received + 1
        }
        ping.close()
        return received
    }
}
