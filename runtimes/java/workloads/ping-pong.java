// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
// each pair a pinger sends a count, starting at 0, to its ponger, which sends
// back the count plus one; the pinger sends that count plus one again, until
// it has had `rounds` replies. Each pinger then stops its ponger and reports
// the last count it received; the caller awaits every unit and sums them.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Threads;
import java.util.List;
import java.util.Map;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * As ring's threads: per pair two SynchronousQueues, one each way (a hand-off, as an unbuffered
 * channel); a stop count ends the ponger. Unit 2p is pair p's pinger, unit 2p + 1 its ponger.
 */
final class PingPong implements Workload {
  private static final long STOP = -1; // counts are never negative

  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(PingPong::pingPong);
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
}
