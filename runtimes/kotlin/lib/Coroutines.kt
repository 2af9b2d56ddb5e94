// The coroutine row's helpers: the caller as a coroutine, units counted as
// they start and end, and a rate loop whose batches may suspend. The rest of
// the kit is the Java kit's (runtimes/java/kit: protocol, clocks, steady
// warm-up, System.gc before every run), compiled in beside these files.
//
// COUNTING COST: a unit's start and finish are the Java kit's Units, three
// and one atomic operations on counters no lock guards. On a coroutine
// launched and joined per operation on Dispatchers.Default, uncounted to
// counted, medians of 10 rounds of a million: 452 to 463, 376 to 408 and 478
// to 463 ns (three runs): nothing above the noise.
package concbench.coroutines

import concbench.kit.Run
import concbench.kit.Units
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlin.coroutines.CoroutineContext

/**
 * Runs [work] as a coroutine on Dispatchers.Default (or [context]), the kit's thread blocked
 * until it ends: the caller is a task of the runtime, whose launches and wakes are the
 * dispatcher's own (docs/extending.md, "The caller on an async runtime").
 */
fun <T> onDefault(
    context: CoroutineContext = Dispatchers.Default,
    work: suspend CoroutineScope.() -> T,
): T = runBlocking(context, work)

/** Times [work], run as [onDefault] runs it: the hand-off to the dispatcher and back is timed. */
fun Run.timedOnDefault(work: suspend CoroutineScope.() -> Unit) = timed { onDefault(work = work) }

/**
 * The kit's rate loop (Run.rate) run by the calling coroutine itself, so that a batch may
 * suspend: starts the clocks, then runs [batch] until the time box has passed (at least once).
 */
inline fun Run.rateLoop(batch: () -> Unit) {
    startRate()
    do {
        batch()
    } while (ranBatch())
}

/** Launches a unit: counted as it starts and as it ends. */
fun CoroutineScope.launchUnit(
    units: Units,
    body: suspend CoroutineScope.() -> Unit,
): Job =
    launch {
        units.start()
        try {
            body()
        } finally {
            units.finish()
        }
    }

/** Starts a unit whose value is awaited: counted as it starts and as it ends. */
fun <T> CoroutineScope.asyncUnit(
    units: Units,
    body: suspend CoroutineScope.() -> T,
): Deferred<T> =
    async {
        units.start()
        try {
            body()
        } finally {
            units.finish()
        }
    }

/** Launches [n] units, the i-th running `body(i)`. */
fun CoroutineScope.launchUnits(
    units: Units,
    n: Int,
    body: suspend CoroutineScope.(Int) -> Unit,
): List<Job> = List(n) { i -> launchUnit(units) { body(i) } }
