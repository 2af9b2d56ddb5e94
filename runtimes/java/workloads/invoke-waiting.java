// Waiting inside concurrent units (workloads/invoke-waiting.toml): as invoke,
// but each body yields to its scheduler once before it increments the counter.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Invocation;
import java.util.Map;

/**
 * As invoke; the yield is Thread.yield: a platform thread's is a sched_yield, the kernel its
 * scheduler; a virtual thread's gives its carrier back to the JDK's scheduler.
 */
final class InvokeWaiting implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Invocation.mechanisms(true);
  }
}
