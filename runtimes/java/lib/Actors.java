package concbench.lib;

import concbench.kit.Run;
import concbench.kit.Units;
import java.time.Duration;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/**
 * The pekko rows: Apache Pekko's typed actors, through its Java API.
 *
 * <p>A trial has one ActorSystem, as an application has: made by its first run, before the clocks,
 * and terminated as the kit exits, untimed, by Pekko's own JVM shutdown hook (its coordinated
 * shutdown). A system per run would time nothing more (it would be made and terminated outside the
 * clocks), but each would start its dispatcher's threads afresh, which the JIT's warm-up and the
 * runs' repetitions would pay for many times over.
 *
 * <p>A run's caller is an actor of that system (the settled policy for the caller on an async
 * runtime): the run asks the system's guardian to start the run's coordinator, which spawns the
 * units as its children, plays the caller's part, and stops itself with the run's result. Stopping
 * an actor stops its children first, and its stop's callback, which replies, runs once they have
 * all stopped: the ask completes, inside the clocks, when every unit has ended. The coordinator is
 * not a unit, as the caller of the other rows is not.
 *
 * <p>Units are {@link Unit}s: counted alive from their setup to their PostStop signal. Counting
 * cost: three atomic operations on the run's counters as an actor starts and one as it stops
 * (kit/Units.java), nothing measurable on an actor spawned, started and stopped per operation (a
 * coordinator spawning 100,000 one at a time, each telling it it has started, the coordinator
 * stopping it and awaiting its Terminated): medians of 16 rounds, counted against bare, 3.54
 * against 3.26 us, 4.23 against 4.57, 3.34 against 3.52 in three runs on the loaded 2-core VM
 * (docs/protocol.md's list).
 */
public final class Actors {
  /** How long a run's ask waits: longer than any trial, whose own timeout ends it first. */
  private static final Duration PATIENCE = Duration.ofDays(1);

  private static ActorSystem<Start> system;

  /** The guardian's one message: start a run's coordinator. */
  private record Start(Behavior<?> coordinator) {}

  private Actors() {}

  /**
   * Runs {@code coordinator}, given where to send its result, as the run's timed work, and returns
   * the result it stopped with (see {@link #stopWith}).
   */
  public static <R> R run(Run run, Function<ActorRef<R>, Behavior<?>> coordinator)
      throws Exception {
    ActorSystem<Start> actors = system();
    Object[] result = new Object[1];
    run.timed(
        () ->
            result[0] =
                AskPattern.<Start, R>ask(
                        actors,
                        replyTo -> new Start(coordinator.apply(replyTo)),
                        PATIENCE,
                        actors.scheduler())
                    .toCompletableFuture()
                    .get());
    @SuppressWarnings("unchecked")
    R reply = (R) result[0];
    return reply;
  }

  /** A coordinator's last behaviour: stop, and once its units have stopped, reply {@code value}. */
  public static <T, R> Behavior<T> stopWith(ActorRef<R> replyTo, R value) {
    return Behaviors.stopped(() -> replyTo.tell(value));
  }

  /**
   * A coordinator's behaviour that sums the {@code left} counts its units send it, then stops with
   * the sum.
   */
  public static Behavior<Long> sum(ActorRef<Long> replyTo, long left) {
    return sum(replyTo, left, 0);
  }

  private static Behavior<Long> sum(ActorRef<Long> replyTo, long left, long sum) {
    return Behaviors.receiveMessage(
        count -> left == 1 ? stopWith(replyTo, sum + count) : sum(replyTo, left - 1, sum + count));
  }

  /** The trial's actor system, made on first use. */
  private static synchronized ActorSystem<Start> system() {
    if (system == null) {
      system =
          ActorSystem.create(
              Behaviors.setup(
                  context ->
                      Behaviors.receive(Start.class)
                          .onMessage(
                              Start.class,
                              start -> {
                                context.spawnAnonymous(start.coordinator());
                                return Behaviors.same();
                              })
                          .build()),
              "concbench");
    }
    return system;
  }

  /** The system's dispatcher, on which the pekko rows' futures run. */
  public static java.util.concurrent.Executor dispatcher() {
    return system().executionContext();
  }

  /**
   * A unit: an actor counted alive from its setup (its constructor, which Behaviors.setup runs as
   * the actor starts) to its PostStop signal. A subclass gives its messages' handlers to {@link
   * #receive}, and keeps its state in fields: it stays one behaviour until it stops.
   */
  public abstract static class Unit<T> extends AbstractBehavior<T> {
    private final Units units;

    protected Unit(ActorContext<T> context, Units units) {
      super(context);
      this.units = units;
      units.start();
    }

    /** The unit's handlers, added to {@code builder}. */
    protected abstract ReceiveBuilder<T> receive(ReceiveBuilder<T> builder);

    @Override
    public final Receive<T> createReceive() {
      return receive(newReceiveBuilder())
          .onSignal(
              PostStop.class,
              stop -> {
                units.finish();
                return this;
              })
          .build();
    }
  }
}
