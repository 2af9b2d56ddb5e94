// Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
// next. The first starts a token at count 0; every pass adds one. When the
// token reaches the first unit for the `laps`-th time, the first unit stops
// it and reports its count; then every unit is stopped and awaited.
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
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/**
 * A thread per node, each taking the token from a SynchronousQueue of its own (a hand-off, as an
 * unbuffered channel) and putting it to the next node's; a stop token ends a node.
 */
final class Ring implements Workload {
  private static final long STOP = -1; // counts are never negative

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Ring::ring));
    mechanisms.put("pekko", Ring::pekko);
    return mechanisms;
  }

  private static void ring(Run run, ThreadFactory threads) throws Exception {
    int nodes = run.count("nodes");
    long laps = run.integer("laps");
    List<SynchronousQueue<Long>> inbox =
        Stream.generate(SynchronousQueue<Long>::new).limit(nodes).toList();
    long[] hops = new long[1];
    Threads.startAll(
        run.units(),
        threads,
        nodes,
        node -> {
          if (node == 0) {
            hops[0] = lead(inbox, laps);
          } else {
            pass(inbox.get(node), inbox.get((node + 1) % nodes));
          }
        });
    run.result("hops", hops[0]);
  }

  /** The first node: starts the token, stops it after its laps, then stops the ring. */
  private static long lead(List<SynchronousQueue<Long>> inbox, long laps)
      throws InterruptedException {
    long count = 0;
    inbox.get(1).put(1L);
    for (long lap = 1; lap <= laps; lap++) {
      count = inbox.get(0).take();
      if (lap < laps) {
        inbox.get(1).put(count + 1);
      }
    }
    for (SynchronousQueue<Long> node : inbox.subList(1, inbox.size())) {
      node.put(STOP);
    }
    return count;
  }

  private static void pass(SynchronousQueue<Long> in, SynchronousQueue<Long> next)
      throws InterruptedException {
    for (long count = in.take(); count != STOP; count = in.take()) {
      next.put(count + 1);
    }
  }

  /** What a pekko node is told: the token, or (the first node, once) the node to pass it to. */
  private sealed interface Pass {}

  private record Token(long count) implements Pass {}

  private record Next(ActorRef<Pass> node) implements Pass {}

  /**
   * Pekko: an actor per node, a pass a tell. As Erlang's ring, the first node is spawned first and
   * the others each knowing the node spawned before it, the first of them knowing the first node,
   * which learns its next, the last spawned, as it starts the token. The first node tells the
   * coordinator the count after its laps; the coordinator then stops, which stops every node.
   */
  private static void pekko(Run run) throws Exception {
    int nodes = run.count("nodes");
    long laps = run.integer("laps");
    Units units = run.units();
    long hops =
        Actors.run(
            run,
            (ActorRef<Long> done) ->
                Behaviors.<Long>setup(
                    context -> {
                      ActorRef<Pass> first =
                          context.spawnAnonymous(
                              Behaviors.setup(
                                  node -> new FirstNode(node, units, laps, context.getSelf())));
                      ActorRef<Pass> next = first;
                      for (int i = 1; i < nodes; i++) {
                        ActorRef<Pass> to = next;
                        next =
                            context.spawnAnonymous(
                                Behaviors.setup(node -> new Node(node, units, to)));
                      }
                      first.tell(new Next(next));
                      return Behaviors.receiveMessage(count -> Actors.stopWith(done, count));
                    }));
    run.result("hops", hops);
  }

  private static final class Node extends Actors.Unit<Pass> {
    private final ActorRef<Pass> next;

    Node(ActorContext<Pass> context, Units units, ActorRef<Pass> next) {
      super(context, units);
      this.next = next;
    }

    @Override
    protected ReceiveBuilder<Pass> receive(ReceiveBuilder<Pass> builder) {
      return builder.onMessage(
          Token.class,
          token -> {
            next.tell(new Token(token.count() + 1));
            return this;
          });
    }
  }

  private static final class FirstNode extends Actors.Unit<Pass> {
    private final ActorRef<Long> lapped;
    private long lapsLeft;
    private ActorRef<Pass> next;

    FirstNode(ActorContext<Pass> context, Units units, long laps, ActorRef<Long> lapped) {
      super(context, units);
      this.lapsLeft = laps;
      this.lapped = lapped;
    }

    @Override
    protected ReceiveBuilder<Pass> receive(ReceiveBuilder<Pass> builder) {
      return builder
          .onMessage(
              Next.class,
              start -> {
                next = start.node();
                next.tell(new Token(1));
                return this;
              })
          .onMessage(
              Token.class,
              token -> {
                if (--lapsLeft == 0) {
                  lapped.tell(token.count());
                } else {
                  next.tell(new Token(token.count() + 1));
                }
                return this;
              });
    }
  }
}
