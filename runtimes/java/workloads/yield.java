// Mere waiting: wait 0 (workloads/yield.toml): no Java mechanism can express
// it honestly, and runtime.toml says why: neither platform nor virtual threads
// can be kept to one CPU from inside the JVM, so a partner would move the turn
// counter in parallel and `switched` would lie. The file exists so that the
// cells show that reason, not "not implemented".
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import java.util.Map;

/** No mechanism (runtime.toml's n/a). */
final class Yield implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Map.of();
  }
}
