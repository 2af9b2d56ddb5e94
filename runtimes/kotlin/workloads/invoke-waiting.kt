// Waiting inside concurrent units (workloads/invoke-waiting.toml): as invoke,
// but each body yields to its scheduler once before it increments the counter.
package concbench.workloads

import concbench.coroutines.Invocation
import concbench.kit.Workload

/** A coroutine launched per operation (lib/Invocation.kt). */
class InvokeWaiting : Workload {
    override fun mechanisms() = Invocation.mechanisms(waits = true)
}
