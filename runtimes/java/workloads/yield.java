// Mere waiting: wait 0 (workloads/yield.toml): one operation: the measured
// unit yields to its scheduler (Thread.yield) and is resumed. `partners` more
// units yield in a loop beside it until the time box is over; then they are
// stopped and joined (timed, as the end of the run). Every unit adds one to a
// shared turn counter each time it runs; a yield after which the counter has
// moved is `switched`. The measured unit counts its own resumptions: the
// result.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.OneCpu;
import concbench.lib.Threads;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * With partners the units are confined to one CPU, untimed, so that a partner moves the turn
 * counter only when a yield switches to it, not in parallel on the other core (docs/extending.md,
 * "Yield with partners"): the thread row pins its threads (OneCpu, as c/pthread does), and the
 * virtual row runs the JDK's scheduler with one carrier (jdk.virtualThreadScheduler.parallelism=1,
 * which the scheduler reads as the process makes its first virtual thread: this run, in a trial of
 * this cell only). A platform thread's Thread.yield is a sched_yield, the kernel its scheduler; a
 * virtual thread's gives its carrier back to the JDK's scheduler. With no partners nothing is
 * confined.
 */
final class Yield implements Workload {
  private static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";

  @Override
  public Map<String, Mechanism> mechanisms() {
    return Map.of("thread", Yield::platform, "virtual", Yield::virtual);
  }

  private static void platform(Run run) throws Exception {
    ThreadFactory threads = Thread.ofPlatform().factory();
    if (run.count("partners") == 0) {
      yields(run, threads);
      return;
    }
    try (OneCpu pinned = new OneCpu()) { // the units are started from this thread: they inherit it
      yields(run, threads);
    }
  }

  private static void virtual(Run run) throws Exception {
    if (run.count("partners") > 0) {
      System.setProperty(PARALLELISM, "1");
    }
    yields(run, Thread.ofVirtual().factory());
  }

  /** The turn counter, and the measured unit's own counts. */
  private static final class Turns {
    final AtomicLong turn = new AtomicLong();
    volatile boolean stop; // partners: end the loop
    long seen; // the counter after the measured unit's last bump
    long resumed, switched;

    void partner() {
      while (!stop) {
        turn.incrementAndGet();
        Thread.yield();
      }
    }

    /** One operation of the measured unit. */
    void yieldOnce() {
      Thread.yield();
      long now = turn.getAndIncrement();
      if (now != seen) {
        switched++;
      }
      seen = now + 1;
      resumed++;
    }
  }

  /**
   * The measured unit, a thread of the row's kind, starts the partners, runs the kit's rate loop,
   * then stops and joins them; the clocks stop as it ends. It starts them itself so that, on one
   * carrier, they wait in the carrier's own queue and take turns with it there: a virtual thread
   * started from the kit's platform thread waits in another queue, which a carrier kept busy by
   * threads yielding through its own never polls (JDK 25).
   */
  private static void yields(Run run, ThreadFactory threads) throws Exception {
    int batch = run.count("batch"), partners = run.count("partners");
    Turns turns = new Turns();
    Threads.startAll(
        run.units(),
        threads,
        1,
        measured -> {
          Threads.Started others =
              Threads.start(run.units(), threads, partners, p -> turns.partner());
          try {
            turns.seen = turns.turn.getAndIncrement() + 1;
            run.rate(
                () -> {
                  for (int i = 0; i < batch; i++) {
                    turns.yieldOnce();
                  }
                });
          } finally {
            turns.stop = true;
            others.join();
          }
        });
    run.stopClocks(); // what follows (restoring the CPU mask) is untimed
    run.result("count", turns.resumed);
    run.evidence("switched", turns.switched);
  }
}
