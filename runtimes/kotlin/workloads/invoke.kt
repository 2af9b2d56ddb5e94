// Mere invocation (workloads/invoke.toml): one operation starts a unit whose
// body increments a counter and gets its result, in the way `mode` says.
package concbench.workloads

import concbench.coroutines.Invocation
import concbench.kit.Workload

/** A coroutine launched per operation (lib/Invocation.kt). */
class Invoke : Workload {
    override fun mechanisms() = Invocation.mechanisms(waits = false)
}
