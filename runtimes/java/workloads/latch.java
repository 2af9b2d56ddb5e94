// Countdown latch (workloads/latch.toml): `count` units made at the start of
// a run serve all its rounds; in each of `rounds` rounds the caller makes a
// latch of `count`, asks every unit to count it down once, and waits until
// it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own; the tallies are summed modulo 1,000,000,007.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.CountedPool;
import concbench.lib.Threads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/** The latch is a CountDownLatch, java.util.concurrent's count-down latch. */
final class Latch implements Workload {
  private static final long MODULUS = 1_000_000_007;
  private static final CountDownLatch STOP = new CountDownLatch(0);

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Latch::threads));
    mechanisms.put("pool", Latch::pool);
    mechanisms.put("pekko", Latch::pekko);
    return mechanisms;
  }

  /** Unit k's tally and count-downs, written by one thread at a time. */
  private static final class Tally {
    long tally;
    long made;

    /** One count-down; made is then r + 1. */
    void countDown(int k, CountDownLatch latch) {
      made(k);
      latch.countDown();
    }

    /** Unit k's count-down made: its tally's share. */
    void made(int k) {
      made++;
      tally = (tally + (k + 1) * made) % MODULUS;
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

  /** A pekko unit's reply: it counted the round's latch down. */
  private enum Counted {
    DOWN
  }

  /** A round's request: count down, replying to the latch. */
  private record CountDown(ActorRef<Counted> latch) {}

  /**
   * Pekko has no latch an actor may wait on (an actor must not block its dispatcher's thread): a
   * count-down is a unit's reply, and the coordinator, the caller, counts a round's replies to
   * zero, as erlang/process's caller does. Each unit keeps its tally in a Tally of its own, read
   * after the run.
   */
  private static void pekko(Run run) throws Exception {
    int count = run.count("count");
    long rounds = run.integer("rounds");
    Units units = run.units();
    Tally[] tallies = Stream.generate(Tally::new).limit(count).toArray(Tally[]::new);
    long woke =
        Actors.run(
            run,
            (ActorRef<Long> done) ->
                Behaviors.<Counted>setup(
                    context -> new Rounds(context, units, tallies, rounds, done)));
    report(run, woke, tallies);
  }

  /** The coordinator: a round at a time, each a latch of `count` replies. */
  private static final class Rounds extends AbstractBehavior<Counted> {
    private final List<ActorRef<CountDown>> counters;
    private final long rounds;
    private final ActorRef<Long> done;
    private long woke;
    private int left;

    Rounds(
        ActorContext<Counted> context,
        Units units,
        Tally[] tallies,
        long rounds,
        ActorRef<Long> done) {
      super(context);
      this.rounds = rounds;
      this.done = done;
      counters =
          IntStream.range(0, tallies.length)
              .mapToObj(
                  k ->
                      context.spawnAnonymous(
                          Behaviors.<CountDown>setup(
                              counter -> new Counter(counter, units, k, tallies[k]))))
              .toList();
      startRound();
    }

    private void startRound() {
      left = counters.size();
      counters.forEach(counter -> counter.tell(new CountDown(getContext().getSelf())));
    }

    @Override
    public Receive<Counted> createReceive() {
      return newReceiveBuilder().onMessage(Counted.class, counted -> counted()).build();
    }

    private Behavior<Counted> counted() {
      if (--left > 0) {
        return this;
      }
      if (++woke < rounds) {
        startRound();
        return this;
      }
      return Actors.stopWith(done, woke);
    }
  }

  private static final class Counter extends Actors.Unit<CountDown> {
    private final int k;
    private final Tally tally;

    Counter(ActorContext<CountDown> context, Units units, int k, Tally tally) {
      super(context, units);
      this.k = k;
      this.tally = tally;
    }

    @Override
    protected ReceiveBuilder<CountDown> receive(ReceiveBuilder<CountDown> builder) {
      return builder.onMessage(
          CountDown.class,
          request -> {
            tally.made(k);
            request.latch().tell(Counted.DOWN);
            return this;
          });
    }
  }
}
