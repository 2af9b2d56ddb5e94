package concbench.lib;

import concbench.kit.Mechanism;
import concbench.kit.Refusal;
import concbench.kit.Run;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * invoke and invoke-waiting on the thread and virtual rows: one operation starts a thread whose
 * body increments a counter (after yielding once with Thread.yield, if it waits), in the way {@code
 * mode} says:
 *
 * <ul>
 *   <li>await: start it, join it, next;
 *   <li>batch: start a batch, then join them all;
 *   <li>forget: start a batch, then yield once (Thread.yield, the kit's loop being on a platform
 *       thread: a sched_yield) so that they can run; what is still outstanding when the time box
 *       ends is awaited then (timed).
 * </ul>
 *
 * <p>A forgotten thread is not kept, so that a long time box does not hold every thread it started:
 * it releases a permit as it ends instead, and the permits are acquired at the end. The bodies run
 * in parallel (platform threads, or virtual ones on one carrier per core): the counter is atomic.
 */
public final class Invocation {
  private Invocation() {}

  /** The thread and virtual mechanisms; {@code waits}: each body yields once first. */
  public static Map<String, Mechanism> mechanisms(boolean waits) {
    return Threads.mechanisms((run, threads) -> invoke(run, threads, waits));
  }

  private static void invoke(Run run, ThreadFactory threads, boolean waits) throws Exception {
    int batch = run.count("batch");
    AtomicLong count = new AtomicLong();
    Runnable body =
        run.units()
            .counted(
                () -> {
                  if (waits) {
                    Thread.yield();
                  }
                  count.incrementAndGet();
                });
    switch (run.choice("mode")) {
      case "await" ->
          run.rate(
              () -> {
                for (int i = 0; i < batch; i++) {
                  Thread unit = threads.newThread(body);
                  unit.start();
                  unit.join();
                }
              });
      case "batch" -> {
        Thread[] started = new Thread[batch];
        run.rate(
            () -> {
              for (int i = 0; i < batch; i++) {
                started[i] = threads.newThread(body);
                started[i].start();
              }
              for (Thread unit : started) {
                unit.join();
              }
            });
      }
      case "forget" -> {
        Semaphore ended = new Semaphore(0);
        Runnable forgotten =
            () -> {
              body.run();
              ended.release();
            };
        long[] started = {0};
        run.rate(
            () -> {
              for (int i = 0; i < batch; i++) {
                threads.newThread(forgotten).start();
              }
              started[0] += batch;
              Thread.yield();
            });
        ended.acquire(Math.toIntExact(started[0]));
      }
      default -> throw new Refusal("unknown mode " + run.choice("mode"));
    }
    run.result("count", count.get());
  }
}
