// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one
// and sum the values.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.CountedPool;
import concbench.lib.Threads;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;

final class Future implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Future::threadPerTask));
    mechanisms.put("pool", Future::pool);
    mechanisms.put("pekko", Future::pekko);
    return mechanisms;
  }

  private static long value(int i) {
    return (long) i * i % 1000;
  }

  /**
   * A thread per future: Executors.newThreadPerTaskExecutor (for virtual threads, what
   * newVirtualThreadPerTaskExecutor is), each task's body a unit, its Future awaited with get;
   * closing the executor awaits its threads.
   */
  private static void threadPerTask(Run run, ThreadFactory threads) throws Exception {
    int futures = run.count("futures");
    Units units = run.units();
    long sum = 0;
    try (ExecutorService executor = Executors.newThreadPerTaskExecutor(threads)) {
      List<java.util.concurrent.Future<Long>> values = new ArrayList<>(futures);
      for (int i = 0; i < futures; i++) {
        int future = i;
        values.add(
            executor.submit(
                () -> {
                  units.start();
                  long value = value(future);
                  units.finish();
                  return value;
                }));
      }
      for (java.util.concurrent.Future<Long> value : values) {
        sum += value.get();
      }
    }
    run.result("sum", sum);
  }

  /** CompletableFutures supplied on a fixed pool of one thread per core, joined in turn. */
  private static void pool(Run run) throws Exception {
    int futures = run.count("futures");
    long sum = 0;
    try (CountedPool pool =
        new CountedPool(run.units(), Runtime.getRuntime().availableProcessors())) {
      List<CompletableFuture<Long>> values = new ArrayList<>(futures);
      for (int i = 0; i < futures; i++) {
        int future = i;
        values.add(CompletableFuture.supplyAsync(() -> value(future), pool.executor()));
      }
      for (CompletableFuture<Long> value : values) {
        sum += value.join();
      }
    }
    run.result("sum", sum);
  }

  /**
   * Pekko's futures: CompletableFutures supplied on the actor system's dispatcher (its
   * ExecutionContext, an Executor), as Pekko's Java API runs a future, joined in turn. The
   * dispatcher's threads outlive the run: the units are those that ran a future (each future notes
   * its thread in a slot of its own, counted after the clocks), all alive for the whole run, as
   * rust/rayon's.
   */
  private static void pekko(Run run) throws Exception {
    int futures = run.count("futures");
    Executor dispatcher = Actors.dispatcher();
    Thread[] ranOn = new Thread[futures];
    long[] sum = new long[1];
    run.timed(
        () -> {
          List<CompletableFuture<Long>> values = new ArrayList<>(futures);
          for (int i = 0; i < futures; i++) {
            int future = i;
            values.add(
                CompletableFuture.supplyAsync(
                    () -> {
                      ranOn[future] = Thread.currentThread();
                      return value(future);
                    },
                    dispatcher));
          }
          for (CompletableFuture<Long> value : values) {
            sum[0] += value.join();
          }
        });
    long threads = Stream.of(ranOn).distinct().count();
    run.units().tally(threads, threads);
    run.result("sum", sum[0]);
  }
}
