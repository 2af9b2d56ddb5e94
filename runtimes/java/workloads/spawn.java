// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` if that is more than 0, then returns i; await them all
// and sum what they returned.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Threads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

/** One thread per task, joined; each writes what it returns into its own slot. */
final class Spawn implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(Spawn::spawn);
  }

  private static void spawn(Run run, ThreadFactory threads) throws Exception {
    int tasks = run.count("tasks");
    Duration delay = Duration.ofMillis(run.integer("delay_ms"));
    long[] returned = new long[tasks];
    Threads.startAll(
        run.units(),
        threads,
        tasks,
        i -> {
          if (delay.isPositive()) {
            Thread.sleep(delay);
          }
          returned[i] = i;
        });
    long sum = 0;
    for (long value : returned) {
      sum += value;
    }
    run.result("sum", sum);
  }
}
