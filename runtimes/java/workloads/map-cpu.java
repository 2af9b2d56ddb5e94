// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
// evaluates a case multiplies, so evaluating the wrong cases gives a wrong sum.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.WorkerModes;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.LongStream;

final class MapCpu implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return WorkerModes.mechanisms(MapCpu::mapCpu);
  }

  private static long tarai(long x, long y, long z) {
    if (x <= y) {
      return y;
    }
    return tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y));
  }

  private static void mapCpu(Run run, WorkerModes.Mode mode) throws Exception {
    long[] inputs = LongStream.range(0, run.count("cases")).toArray();
    long[] sum = {0};
    WorkerModes.run(
        run,
        mode,
        i -> (i + 1) * tarai(9, 4, 0),
        apply -> sum[0] += Arrays.stream(apply.to(inputs)).sum());
    run.result("sum", sum[0]);
  }
}
