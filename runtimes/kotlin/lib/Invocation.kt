package concbench.coroutines

import concbench.kit.Mechanism
import concbench.kit.Refusal
import concbench.kit.Run
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.yield
import java.util.concurrent.atomic.AtomicLong

/**
 * invoke and invoke-waiting on the coroutine row: one operation launches a coroutine whose body
 * increments a counter (after yielding once, if it waits), in the way `mode` says:
 * - await: launch it, join it, next;
 * - batch: launch a batch, then join them all;
 * - forget: launch a batch, then yield once so that they can run; what is still outstanding when
 *   the time box ends is awaited then (timed), as the end of the coroutineScope they were
 *   launched in.
 *
 * The kit's rate loop runs in the caller's coroutine on Dispatchers.Default (Run.rateLoop), so
 * that a launch is the dispatcher's own. A coroutine that has ended leaves its parent's children,
 * so a long time box does not hold every one it launched. The bodies run in parallel (one thread
 * per core): the counter is atomic.
 */
object Invocation {
    /** The coroutine mechanism; [waits]: each body yields once first. */
    fun mechanisms(waits: Boolean) = mapOf("coroutine" to Mechanism { invoke(it, waits) })

    private fun invoke(
        run: Run,
        waits: Boolean,
    ) {
        val batch = run.count("batch")
        val count = AtomicLong()
        val body: suspend () -> Unit = {
            if (waits) {
                yield()
            }
            count.incrementAndGet()
        }
        val mode = run.choice("mode")
        onDefault {
            when (mode) {
                "await" -> {
                    run.rateLoop { repeat(batch) { launchUnit(run.units()) { body() }.join() } }
                }

                "batch" -> {
                    run.rateLoop { List(batch) { launchUnit(run.units()) { body() } }.joinAll() }
                }

                "forget" -> {
                    coroutineScope {
                        run.rateLoop {
                            repeat(batch) { launchUnit(run.units()) { body() } }
                            yield()
                        }
                    }
                }

                else -> {
                    throw Refusal("unknown mode $mode")
                }
            }
            run.stopClocks()
        }
        run.result("count", count.get())
    }
}
