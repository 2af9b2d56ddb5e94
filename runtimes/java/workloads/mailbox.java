// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox, which holds at most
// `capacity` messages; the receiver takes exactly `messages`, counting and
// summing them and adding k x payload of its k-th message to a checksum
// modulo 1,000,000,007, and hands its totals back to the caller.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Queues;
import concbench.lib.Threads;
import concbench.lib.Waits;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;

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
    return Threads.mechanisms(Mailbox::mailbox);
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
}
