// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an LCG integer x in [-1,000,000, 1,000,000] and computes x + 1; the
// result is the sum.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Lcg;
import concbench.lib.WorkerModes;
import java.util.Arrays;
import java.util.Map;

final class MapTrivial implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return WorkerModes.mechanisms(MapTrivial::mapTrivial);
  }

  private static void mapTrivial(Run run, WorkerModes.Mode mode) throws Exception {
    long[] inputs = Lcg.draws(run.count("cases"), -1_000_000, 1_000_000);
    long[] sum = {0};
    WorkerModes.run(
        run, mode, x -> x + 1, apply -> sum[0] += Arrays.stream(apply.to(inputs)).sum());
    run.result("sum", sum[0]);
  }
}
