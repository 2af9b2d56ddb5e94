// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox, which holds at most
// `capacity` messages; the receiver takes exactly `messages`, counting and
// summing them and adding k x payload of its k-th message to a checksum
// modulo 1,000,000,007, and hands its totals back to the caller.
package concbench.workloads

import concbench.coroutines.Waits
import concbench.coroutines.asyncUnit
import concbench.coroutines.bounded
import concbench.coroutines.launchUnit
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload

/**
 * The mailbox is a Channel of `capacity` messages (for capacity 0, an unlimited one); the receiver
 * is an async whose value is its totals. blocked: sends that found it full and receives that found
 * it empty (Waits).
 */
class Mailbox : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::mailbox))

    /** What the receiver hands back. */
    private data class Receipt(
        val count: Long,
        val sum: Long,
        val ordered: Long,
    )

    private fun mailbox(run: Run) {
        val messages = run.integer("messages")
        val mailbox = bounded<Long>(run.count("capacity"))
        val waits = Waits.forUnits(2)
        lateinit var receipt: Receipt
        run.timedOnDefault {
            launchUnit(run.units()) {
                for (payload in 1..messages) {
                    waits[0].send(mailbox, payload)
                }
            }
            receipt =
                asyncUnit(run.units()) {
                    var count = 0L
                    var sum = 0L
                    var ordered = 0L
                    for (k in 1..messages) {
                        val payload = waits[1].receive(mailbox)
                        count++
                        sum += payload
                        ordered = (ordered + k % MODULUS * (payload % MODULUS)) % MODULUS
                    }
                    Receipt(count, sum, ordered)
                }.await()
        }
        run.result("count", receipt.count)
        run.result("sum", receipt.sum)
        run.result("ordered", receipt.ordered)
        run.evidence("blocked", Waits.total(waits))
    }

    private companion object {
        const val MODULUS = 1_000_000_007L
    }
}
