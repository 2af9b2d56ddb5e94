// Countdown latch (workloads/latch.toml): `count` units made at the start of
// a run serve all its rounds; in each of `rounds` rounds the caller makes a
// latch of `count`, asks every unit to count it down once, and waits until
// it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own; the tallies are summed modulo 1,000,000,007.
package concbench.workloads

import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.channels.Channel
import java.util.concurrent.atomic.AtomicInteger

/**
 * kotlinx.coroutines has no count-down latch: the latch is an atomic count whose last count-down
 * completes a CompletableDeferred, which the caller awaits (suspending, as CountDownLatch.await
 * blocks). A coroutine per unit, each given its rounds' latches on a Channel of its own, closed
 * after the rounds.
 */
class Latch : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::latch))

    private class CountDown(
        count: Int,
    ) {
        private val remaining = AtomicInteger(count)
        private val zero = CompletableDeferred<Unit>()

        fun countDown() {
            if (remaining.decrementAndGet() == 0) {
                zero.complete(Unit)
            }
        }

        suspend fun await() = zero.await()
    }

    private fun latch(run: Run) {
        val count = run.count("count")
        val rounds = run.integer("rounds")
        val asks = List(count) { Channel<CountDown>(1) }
        val tallies = LongArray(count)
        val made = LongArray(count)
        var woke = 0L
        run.timedOnDefault {
            launchUnits(run.units(), count) { k ->
                for (latch in asks[k]) {
                    made[k]++
                    tallies[k] = (tallies[k] + (k + 1) * made[k]) % MODULUS
                    latch.countDown()
                }
            }
            repeat(rounds.toInt()) {
                val latch = CountDown(count)
                asks.forEach { it.send(latch) }
                latch.await()
                woke++
            }
            asks.forEach { it.close() }
        }
        run.result("rounds", woke)
        run.result("countdowns", made.sum())
        run.result("checksum", tallies.fold(0L) { sum, tally -> (sum + tally) % MODULUS })
    }

    private companion object {
        const val MODULUS = 1_000_000_007L
    }
}
