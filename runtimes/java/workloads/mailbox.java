// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox, which holds at most
// `capacity` messages; the receiver takes exactly `messages`, counting and
// summing them and adding k x payload of its k-th message to a checksum
// modulo 1,000,000,007, and hands its totals back to the caller.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Refusal;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.Queues;
import concbench.lib.Threads;
import concbench.lib.Waits;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.ActorCell;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;

/**
 * The mailbox is a BlockingQueue of `capacity` messages (an ArrayBlockingQueue; for capacity 0, an
 * unbounded LinkedBlockingQueue). blocked: puts that found it full and takes that found it empty
 * (lib.Waits).
 */
final class Mailbox implements Workload {
  private static final long MODULUS = 1_000_000_007;
  private static final int SENDER = 0;

  /** What the receiver hands back. */
  private record Receipt(long count, long sum, long ordered) {}

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Mailbox::mailbox));
    mechanisms.put("pekko", Mailbox::pekko);
    return mechanisms;
  }

  private static void mailbox(Run run, ThreadFactory threads) throws Exception {
    long messages = run.integer("messages");
    BlockingQueue<Long> mailbox = Queues.bounded(run.count("capacity"));
    Waits[] waits = Waits.forUnits(2);
    Receipt[] receipt = new Receipt[1];
    Threads.startAll(
        run.units(),
        threads,
        2,
        unit -> {
          if (unit == SENDER) {
            for (long payload = 1; payload <= messages; payload++) {
              waits[unit].put(mailbox, payload);
            }
          } else {
            long count = 0, sum = 0, ordered = 0;
            for (long k = 1; k <= messages; k++) {
              long payload = waits[unit].take(mailbox);
              count++;
              sum += payload;
              ordered = (ordered + k % MODULUS * (payload % MODULUS)) % MODULUS;
            }
            receipt[0] = new Receipt(count, sum, ordered);
          }
        });
    run.result("count", receipt[0].count());
    run.result("sum", receipt[0].sum());
    run.result("ordered", receipt[0].ordered());
    run.evidence("blocked", Waits.total(waits));
  }

  /** The pekko receiver's totals, and the takes it saw its mailbox empty before. */
  private record Totals(Receipt receipt, long blocked) {}

  /** The pekko sender's task: send the payloads to the receiver. */
  private record SendTo(ActorRef<Long> receiver) {}

  /**
   * Pekko: the sender and the receiver are actors, a message a tell into the receiver's mailbox
   * (typed's default, unbounded: a bounded one, MailboxSelector.bounded, drops a message sent to a
   * full mailbox instead of making its send wait, so capacity is 0 only, runtime.toml's limits).
   * The coordinator hands the sender the receiver; the receiver tells it its totals after the last
   * message.
   *
   * <p>blocked: the sender's tells never wait, and the receiver's takes are the dispatcher's, which
   * it cannot watch: it looks at its mailbox as it starts and whenever it has handled a message,
   * and counts the next take as blocked if the mailbox is empty then (ActorCell.hasMessages,
   * Pekko's internal API, through the typed context's classic one). The sender may send in between,
   * so the count is what the receiver saw, as ruby/celluloid's is.
   */
  private static void pekko(Run run) throws Exception {
    if (run.integer("capacity") != 0) {
      throw new Refusal("a typed mailbox drops what is sent to it full: capacity must be 0");
    }
    long messages = run.integer("messages");
    Units units = run.units();
    Totals totals =
        Actors.run(
            run,
            (ActorRef<Totals> done) ->
                Behaviors.<Totals>setup(
                    context -> {
                      ActorRef<Long> receiver =
                          context.spawnAnonymous(
                              Behaviors.setup(
                                  self -> new Receiver(self, units, messages, context.getSelf())));
                      context
                          .spawnAnonymous(
                              Behaviors.<SendTo>setup(self -> new Sender(self, units, messages)))
                          .tell(new SendTo(receiver));
                      return Behaviors.receiveMessage(received -> Actors.stopWith(done, received));
                    }));
    run.result("count", totals.receipt().count());
    run.result("sum", totals.receipt().sum());
    run.result("ordered", totals.receipt().ordered());
    run.evidence("blocked", totals.blocked());
  }

  /** Sends the payloads to the receiver it is given, then stops. */
  private static final class Sender extends Actors.Unit<SendTo> {
    private final long messages;

    Sender(ActorContext<SendTo> context, Units units, long messages) {
      super(context, units);
      this.messages = messages;
    }

    @Override
    protected ReceiveBuilder<SendTo> receive(ReceiveBuilder<SendTo> builder) {
      return builder.onMessage(
          SendTo.class,
          task -> {
            for (long payload = 1; payload <= messages; payload++) {
              task.receiver().tell(payload);
            }
            return Behaviors.stopped();
          });
    }
  }

  private static final class Receiver extends Actors.Unit<Long> {
    private final ActorRef<Totals> done;
    private final ActorCell cell;
    private final long messages;
    private long count, sum, ordered, blocked;

    Receiver(ActorContext<Long> context, Units units, long messages, ActorRef<Totals> done) {
      super(context, units);
      this.messages = messages;
      this.done = done;
      cell = (ActorCell) Adapter.toClassic(context);
      blocked = idle();
    }

    @Override
    protected ReceiveBuilder<Long> receive(ReceiveBuilder<Long> builder) {
      return builder.onMessage(
          Long.class,
          payload -> {
            count++;
            sum += payload;
            ordered = (ordered + count % MODULUS * (payload % MODULUS)) % MODULUS;
            if (count < messages) {
              blocked += idle();
              return this;
            }
            done.tell(new Totals(new Receipt(count, sum, ordered), blocked));
            return Behaviors.stopped();
          });
    }

    /** 1 if the mailbox is empty: the next take will wait for a send. */
    private long idle() {
      return cell.hasMessages() ? 0 : 1;
    }
  }
}
