// Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
// next. The first starts a token at count 0; every pass adds one. When the
// token reaches the first unit for the `laps`-th time, the first unit stops
// it and reports its count; then every unit is stopped and awaited.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Threads;
import java.util.List;
import java.util.Map;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;

/**
 * A thread per node, each taking the token from a SynchronousQueue of its own (a hand-off, as an
 * unbuffered channel) and putting it to the next node's; a stop token ends a node.
 */
final class Ring implements Workload {
  private static final long STOP = -1; // counts are never negative

  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(Ring::ring);
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
}
