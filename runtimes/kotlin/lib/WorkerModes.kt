package concbench.coroutines

import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Units
import kotlinx.coroutines.coroutineScope

/** The coroutine row's map: the results of evaluating the inputs, in their order. */
typealias Apply = suspend (LongArray) -> LongArray

/**
 * map-trivial, map-cpu, map-io and map-shrink, Pbt's worker modes (seed 001), as the Java kit's
 * lib.WorkerModes runs them: one operation is one evaluation, which the workload makes with the
 * coroutine row's map of its evaluate function over a list of inputs. The map launches `workers`
 * coroutines (one per core for 0) on Dispatchers.Default for each evaluation, no more than there
 * are cases; unit w of n evaluates the cases w, w + n, ..., each result written into its case's
 * slot. The kit's rate loop runs in the caller's coroutine, `batch` evaluations a batch.
 */
object WorkerModes {
    /** The coroutine mechanism of a map workload. */
    fun mechanisms(workload: (Run) -> Unit) = mapOf("coroutine" to Mechanism { workload(it) })

    /** Runs the rate loop: [evaluation] once an operation, with the map of [evaluate]. */
    fun run(
        run: Run,
        evaluate: suspend (Long) -> Long,
        evaluation: suspend (Apply) -> Unit,
    ) {
        val batch = run.integer("batch")
        val workers = run.count("workers").takeIf { it > 0 } ?: Runtime.getRuntime().availableProcessors()
        val apply: Apply = { inputs -> striped(run.units(), workers, inputs, evaluate) }
        onDefault {
            run.rateLoop {
                for (i in 0 until batch) {
                    evaluation(apply)
                }
            }
            run.stopClocks()
        }
    }

    private suspend fun striped(
        units: Units,
        workers: Int,
        inputs: LongArray,
        evaluate: suspend (Long) -> Long,
    ): LongArray {
        val results = LongArray(inputs.size)
        val n = minOf(workers, inputs.size)
        coroutineScope {
            launchUnits(units, n) { w ->
                for (i in w until inputs.size step n) {
                    results[i] = evaluate(inputs[i])
                }
            }
        }
        return results
    }
}
