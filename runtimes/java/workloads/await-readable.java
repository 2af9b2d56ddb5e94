// Mere waiting: await readable (workloads/await-readable.toml): one
// operation awaits readability of one of `batch` pipes, each holding a byte
// that is never read: the cost of asking, not of waiting.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Readiness;
import java.nio.channels.SelectionKey;
import java.util.Map;

/** A Selector's select per operation (lib.Readiness). */
final class AwaitReadable implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Readiness.mechanisms(SelectionKey.OP_READ);
  }
}
