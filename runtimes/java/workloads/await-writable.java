// Mere waiting: await writable (workloads/await-writable.toml): one
// operation awaits writability of one of `batch` empty pipes: the cost of
// asking, not of waiting.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Readiness;
import java.nio.channels.SelectionKey;
import java.util.Map;

/** A Selector's select per operation (lib.Readiness). */
final class AwaitWritable implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Readiness.mechanisms(SelectionKey.OP_WRITE);
  }
}
