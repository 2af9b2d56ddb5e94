// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` if that is more than 0, then returns i; await them all
// and sum what they returned.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.Threads;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/** One thread per task, joined; each writes what it returns into its own slot. */
final class Spawn implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Spawn::spawn));
    mechanisms.put("pekko", Spawn::pekko);
    return mechanisms;
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

  /** What wakes a pekko task: its delay's timer, or (no delay) its own message. */
  private enum Wake {
    UP
  }

  /**
   * Pekko: an actor per task, children of the coordinator, which sums what they return. An actor
   * must not block its dispatcher's thread, so a task sleeps as actors do: it schedules a message
   * to itself (ActorContext.scheduleOnce, on the system's scheduler) and waits for it; when it
   * comes, it returns its value, a message to the coordinator, and stops.
   */
  private static void pekko(Run run) throws Exception {
    int tasks = run.count("tasks");
    Duration delay = Duration.ofMillis(run.integer("delay_ms"));
    Units units = run.units();
    long sum =
        Actors.run(
            run,
            (ActorRef<Long> done) ->
                Behaviors.<Long>setup(
                    context -> {
                      for (int i = 0; i < tasks; i++) {
                        long value = i;
                        context.spawnAnonymous(
                            Behaviors.<Wake>setup(
                                task -> new Task(task, units, delay, value, context.getSelf())));
                      }
                      return Actors.sum(done, tasks);
                    }));
    run.result("sum", sum);
  }

  private static final class Task extends Actors.Unit<Wake> {
    private final long value;
    private final ActorRef<Long> returnTo;

    Task(
        ActorContext<Wake> context,
        Units units,
        Duration delay,
        long value,
        ActorRef<Long> returnTo) {
      super(context, units);
      this.value = value;
      this.returnTo = returnTo;
      if (delay.isPositive()) {
        context.scheduleOnce(delay, context.getSelf(), Wake.UP);
      } else {
        context.getSelf().tell(Wake.UP);
      }
    }

    @Override
    protected ReceiveBuilder<Wake> receive(ReceiveBuilder<Wake> builder) {
      return builder.onMessage(
          Wake.class,
          wake -> {
            returnTo.tell(value);
            return Behaviors.stopped();
          });
    }
  }
}
