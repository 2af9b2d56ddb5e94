// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
// each pair a pinger sends a count, starting at 0, to its ponger, which sends
// back the count plus one; the pinger sends that count plus one again, until
// it has had `rounds` replies. Each pinger then stops its ponger and reports
// the last count it received; the caller awaits every unit and sums them.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.Threads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/**
 * As ring's threads: per pair two SynchronousQueues, one each way (a hand-off, as an unbuffered
 * channel); a stop count ends the ponger. Unit 2p is pair p's pinger, unit 2p + 1 its ponger.
 */
final class PingPong implements Workload {
  private static final long STOP = -1; // counts are never negative

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(PingPong::pingPong));
    mechanisms.put("pekko", PingPong::pekko);
    return mechanisms;
  }

  private static void pingPong(Run run, ThreadFactory threads) throws Exception {
    int pairs = run.count("pairs");
    long rounds = run.integer("rounds");
    List<SynchronousQueue<Long>> pings =
        Stream.generate(SynchronousQueue<Long>::new).limit(pairs).toList();
    List<SynchronousQueue<Long>> pongs =
        Stream.generate(SynchronousQueue<Long>::new).limit(pairs).toList();
    long[] last = new long[pairs]; // each pinger's last count
    Threads.startAll(
        run.units(),
        threads,
        2 * pairs,
        unit -> {
          int pair = unit / 2;
          if (unit % 2 == 0) {
            last[pair] = ping(pings.get(pair), pongs.get(pair), rounds);
          } else {
            pong(pings.get(pair), pongs.get(pair));
          }
        });
    run.result("count", LongStream.of(last).sum());
  }

  /** The pinger: sends a count and awaits its reply `rounds` times, then stops its ponger. */
  private static long ping(SynchronousQueue<Long> ping, SynchronousQueue<Long> pong, long rounds)
      throws InterruptedException {
    long send = 0, received = 0;
    for (long round = 0; round < rounds; round++) {
      ping.put(send);
      received = pong.take();
      send = received + 1;
    }
    ping.put(STOP);
    return received;
  }

  private static void pong(SynchronousQueue<Long> ping, SynchronousQueue<Long> pong)
      throws InterruptedException {
    for (long count = ping.take(); count != STOP; count = ping.take()) {
      pong.put(count + 1);
    }
  }

  /** A ping carries where its reply goes, as a typed request does. */
  private record Ping(long count, ActorRef<Pong> replyTo) {}

  private record Pong(long count) {}

  /**
   * Pekko: an actor per pinger and per ponger, a message a tell. Each pinger spawns its ponger as
   * its child and plays with it; after its last reply it tells the coordinator its count and stops,
   * which stops its ponger. The coordinator stops once every pinger has reported.
   */
  private static void pekko(Run run) throws Exception {
    int pairs = run.count("pairs");
    long rounds = run.integer("rounds");
    Units units = run.units();
    long count =
        Actors.run(
            run,
            (ActorRef<Long> done) ->
                Behaviors.<Long>setup(
                    context -> {
                      for (int pair = 0; pair < pairs; pair++) {
                        context.spawnAnonymous(
                            Behaviors.<Pong>setup(
                                pinger -> new Pinger(pinger, units, rounds, context.getSelf())));
                      }
                      return Actors.sum(done, pairs);
                    }));
    run.result("count", count);
  }

  private static final class Ponger extends Actors.Unit<Ping> {
    Ponger(ActorContext<Ping> context, Units units) {
      super(context, units);
    }

    @Override
    protected ReceiveBuilder<Ping> receive(ReceiveBuilder<Ping> builder) {
      return builder.onMessage(
          Ping.class,
          ping -> {
            ping.replyTo().tell(new Pong(ping.count() + 1));
            return this;
          });
    }
  }

  private static final class Pinger extends Actors.Unit<Pong> {
    private final ActorRef<Ping> ponger;
    private final ActorRef<Long> played;
    private long roundsLeft;

    Pinger(ActorContext<Pong> context, Units units, long rounds, ActorRef<Long> played) {
      super(context, units);
      this.roundsLeft = rounds;
      this.played = played;
      ponger = context.spawnAnonymous(Behaviors.setup(ponger -> new Ponger(ponger, units)));
      ponger.tell(new Ping(0, context.getSelf()));
    }

    @Override
    protected ReceiveBuilder<Pong> receive(ReceiveBuilder<Pong> builder) {
      return builder.onMessage(
          Pong.class,
          pong -> {
            if (--roundsLeft > 0) {
              ponger.tell(new Ping(pong.count() + 1, getContext().getSelf()));
              return this;
            }
            played.tell(pong.count());
            return Behaviors.stopped();
          });
    }
  }
}
