// Queue (workloads/queue.toml): per group one queue; its `producers` units
// each put 1..`items`, and once every producer is done, one stop token per
// consumer is put (by the producer that finished last); its `consumers`
// units take until they get a stop token, counting and summing what they
// took.
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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The queue is a BlockingQueue of `capacity` items (an ArrayBlockingQueue; for capacity 0, an
 * unbounded LinkedBlockingQueue). blocked: puts that found it full and takes that found it empty
 * (lib.Waits), each unit counting its own.
 */
final class Queue implements Workload {
  private static final long STOP = 0; // items are 1..items

  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(Queue::queue);
  }

  private record Group(BlockingQueue<Long> items, AtomicInteger producing) {}

  private static void queue(Run run, ThreadFactory threads) throws Exception {
    int groups = run.count("groups"), producers = run.count("producers");
    int consumers = run.count("consumers"), perGroup = producers + consumers;
    long items = run.integer("items");
    int capacity = run.count("capacity");
    Group[] gs = new Group[groups];
    for (int g = 0; g < groups; g++) {
      gs[g] = new Group(Queues.bounded(capacity), new AtomicInteger(producers));
    }
    Waits[] blocked = Waits.forUnits(groups * perGroup);
    long[] count = new long[groups * perGroup], sum = new long[groups * perGroup];
    Threads.startAll(
        run.units(),
        threads,
        groups * perGroup,
        unit -> {
          Group group = gs[unit / perGroup];
          if (unit % perGroup < producers) {
            produce(group, items, consumers, blocked[unit]);
            return;
          }
          for (long value = blocked[unit].take(group.items());
              value != STOP;
              value = blocked[unit].take(group.items())) {
            count[unit]++;
            sum[unit] += value;
          }
        });
    run.result("count", total(count));
    run.result("sum", total(sum));
    run.evidence("blocked", Waits.total(blocked));
  }

  /** Puts 1..items, and the stop tokens if this producer finished last. */
  private static void produce(Group group, long items, int consumers, Waits blocked)
      throws InterruptedException {
    for (long value = 1; value <= items; value++) {
      blocked.put(group.items(), value);
    }
    if (group.producing().decrementAndGet() == 0) {
      for (int c = 0; c < consumers; c++) {
        blocked.put(group.items(), STOP);
      }
    }
  }

  private static long total(long[] counts) {
    long total = 0;
    for (long n : counts) {
      total += n;
    }
    return total;
  }
}
