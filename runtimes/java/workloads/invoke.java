// Mere invocation (workloads/invoke.toml): one operation starts a unit whose
// body increments a counter and gets its result, in the way `mode` says.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Invocation;
import java.util.Map;

/** A thread started per operation (lib.Invocation). */
final class Invoke implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Invocation.mechanisms(false);
  }
}
