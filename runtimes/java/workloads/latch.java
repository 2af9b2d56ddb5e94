// Countdown latch (workloads/latch.toml): `count` units made at the start of
// a run serve all its rounds; in each of `rounds` rounds the caller makes a
// latch of `count`, asks every unit to count it down once, and waits until
// it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own; the tallies are summed modulo 1,000,000,007.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.CountedPool;
import concbench.lib.Threads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;

/** The latch is a CountDownLatch, java.util.concurrent's count-down latch. */
final class Latch implements Workload {
  private static final long MODULUS = 1_000_000_007;
  private static final CountDownLatch STOP = new CountDownLatch(0);

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Latch::threads));
    mechanisms.put("pool", Latch::pool);
    return mechanisms;
  }

  /** Unit k's tally and count-downs, written by one thread at a time. */
  private static final class Tally {
    long tally;
    long made;

    /** One count-down; made is then r + 1. */
    void countDown(int k, CountDownLatch latch) {
      made++;
      tally = (tally + (k + 1) * made) % MODULUS;
      latch.countDown();
    }
  }

  /**
   * A thread per unit, each given its rounds' latches on a queue of its own; a stop latch ends it.
   */
  private static void threads(Run run, ThreadFactory threads) throws Exception {
    int count = run.count("count");
    long rounds = run.integer("rounds");
    List<BlockingQueue<CountDownLatch>> asks =
        Stream.<BlockingQueue<CountDownLatch>>generate(() -> new ArrayBlockingQueue<>(1))
            .limit(count)
            .toList();
    Tally[] tallies = Stream.generate(Tally::new).limit(count).toArray(Tally[]::new);
    Threads.Started units =
        Threads.start(
            run.units(),
            threads,
            count,
            k -> {
              for (CountDownLatch latch = asks.get(k).take();
                  latch != STOP;
                  latch = asks.get(k).take()) {
                tallies[k].countDown(k, latch);
              }
            });
    long woke = 0;
    for (long round = 0; round < rounds; round++) {
      CountDownLatch latch = new CountDownLatch(count);
      for (BlockingQueue<CountDownLatch> ask : asks) {
        ask.put(latch);
      }
      latch.await();
      woke++;
    }
    for (BlockingQueue<CountDownLatch> ask : asks) {
      ask.put(STOP);
    }
    units.join();
    report(run, woke, tallies);
  }

  /**
   * A fixed pool of `count` threads; each round submits `count` jobs, job k counting the latch down
   * for unit k. A round's latch orders its jobs before the next round's.
   */
  private static void pool(Run run) throws Exception {
    int count = run.count("count");
    long rounds = run.integer("rounds");
    Tally[] tallies = Stream.generate(Tally::new).limit(count).toArray(Tally[]::new);
    long woke = 0;
    try (CountedPool pool = new CountedPool(run.units(), count)) {
      for (long round = 0; round < rounds; round++) {
        CountDownLatch latch = new CountDownLatch(count);
        for (int k = 0; k < count; k++) {
          int unit = k;
          pool.executor().execute(() -> tallies[unit].countDown(unit, latch));
        }
        latch.await();
        woke++;
      }
    }
    report(run, woke, tallies);
  }

  private static void report(Run run, long woke, Tally[] tallies) {
    long checksum = 0, countdowns = 0;
    for (Tally unit : tallies) {
      checksum = (checksum + unit.tally) % MODULUS;
      countdowns += unit.made;
    }
    run.result("rounds", woke);
    run.result("countdowns", countdowns);
    run.result("checksum", checksum);
  }
}
