package concbench.lib;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

/**
 * The thread and virtual rows: one workload function over a {@link ThreadFactory}, run on platform
 * threads (the OS's) or on virtual threads (the JDK's, on a ForkJoinPool of carrier threads, one
 * per core), with the same java.util.concurrent primitives.
 */
public final class Threads {
  /** A workload run on the threads a factory makes. */
  @FunctionalInterface
  public interface OnThreads {
    void run(Run run, ThreadFactory threads) throws Exception;
  }

  /** One unit's body: unit {@code i} of a group started together. */
  @FunctionalInterface
  public interface Body {
    void run(int i) throws Exception;
  }

  private Threads() {}

  /** The thread and virtual mechanisms of {@code workload}. */
  public static Map<String, Mechanism> mechanisms(OnThreads workload) {
    return Map.of(
        "thread", run -> workload.run(run, Thread.ofPlatform().factory()),
        "virtual", run -> workload.run(run, Thread.ofVirtual().factory()));
  }

  /**
   * Starts {@code n} units on threads from {@code threads}, the i-th running {@code body(i)}
   * (counted as it starts and as it finishes), and joins them all (see {@link Started#join}).
   */
  public static void startAll(Units units, ThreadFactory threads, int n, Body body)
      throws Exception {
    start(units, threads, n, body).join();
  }

  /** Starts {@code n} units as {@link #startAll} does, to be joined later. */
  public static Started start(Units units, ThreadFactory threads, int n, Body body) {
    Exception[] failures = new Exception[n];
    Thread[] started = new Thread[n];
    for (int i = 0; i < n; i++) {
      int unit = i;
      started[i] =
          threads.newThread(
              units.counted(
                  () -> {
                    try {
                      body.run(unit);
                    } catch (Exception e) {
                      failures[unit] = e;
                    }
                  }));
      started[i].start();
    }
    return new Started(started, failures);
  }

  /** Units started together. */
  public record Started(Thread[] threads, Exception[] failures) {
    /**
     * Joins every unit; a unit's failure is rethrown after the join, with the others suppressed in
     * it.
     */
    public void join() throws Exception {
      for (Thread thread : threads) {
        thread.join();
      }
      rethrow(failures);
    }
  }

  /** Throws the first of {@code failures} (null where none), the others suppressed in it. */
  private static void rethrow(Exception[] failures) throws Exception {
    Exception first = null;
    for (Exception failure : failures) {
      if (failure == null) {
        continue;
      }
      if (first == null) {
        first = failure;
      } else {
        first.addSuppressed(failure);
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
