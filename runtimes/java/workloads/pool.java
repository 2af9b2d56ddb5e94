// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Actors;
import concbench.lib.CountedPool;
import concbench.lib.Threads;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.ReceiveBuilder;
import org.apache.pekko.actor.typed.javadsl.Routers;

final class Pool implements Workload {
  private static final int STOP = -1; // jobs are numbered from 0

  @Override
  public Map<String, Mechanism> mechanisms() {
    Map<String, Mechanism> mechanisms = new HashMap<>(Threads.mechanisms(Pool::workers));
    mechanisms.put("pool", Pool::executor);
    mechanisms.put("pekko", Pool::pekko);
    return mechanisms;
  }

  /** The table the jobs look up, made before the timing. */
  private static Map<Integer, Long> table(int keys) {
    Map<Integer, Long> table = new HashMap<>();
    for (int k = 0; k < keys; k++) {
      table.put(k, 2L * k + 1);
    }
    return table;
  }

  /**
   * A hand-made pool: `pool_size` threads taking job numbers from a LinkedBlockingQueue (no bound,
   * so that submitting never waits for a worker), each job's value written into its own slot; a
   * stop token per worker, after the jobs, ends them.
   */
  private static void workers(Run run, ThreadFactory threads) throws Exception {
    int poolSize = run.count("pool_size"), jobs = run.count("jobs"), keys = run.count("keys");
    Map<Integer, Long> table = table(keys);
    long[] values = new long[jobs];
    run.timed(
        () -> {
          BlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
          Threads.Started workers =
              Threads.start(
                  run.units(),
                  threads,
                  poolSize,
                  worker -> {
                    for (int job = queue.take(); job != STOP; job = queue.take()) {
                      values[job] = table.get(job % keys);
                    }
                  });
          for (int job = 0; job < jobs; job++) {
            queue.put(job);
          }
          for (int worker = 0; worker < poolSize; worker++) {
            queue.put(STOP);
          }
          workers.join();
        });
    long sum = 0;
    for (long value : values) {
      sum += value;
    }
    run.result("sum", sum);
  }

  /**
   * Java's own pool: a fixed ThreadPoolExecutor, each job a CompletableFuture supplied on it; all
   * are awaited, then the pool closed (its threads awaited), and the values summed after the clocks
   * stop.
   */
  private static void executor(Run run) throws Exception {
    int poolSize = run.count("pool_size"), jobs = run.count("jobs"), keys = run.count("keys");
    Map<Integer, Long> table = table(keys);
    List<CompletableFuture<Long>> values = new ArrayList<>(jobs);
    run.timed(
        () -> {
          try (CountedPool pool = new CountedPool(run.units(), poolSize)) {
            for (int job = 0; job < jobs; job++) {
              int key = job % keys;
              values.add(CompletableFuture.supplyAsync(() -> table.get(key), pool.executor()));
            }
            CompletableFuture.allOf(values.toArray(CompletableFuture[]::new)).join();
          }
        });
    run.result("sum", values.stream().mapToLong(CompletableFuture::join).sum());
  }

  /** A pekko job: the key to look up, and where its value goes. */
  private record Lookup(int key, ActorRef<Long> replyTo) {}

  /**
   * Pekko's pool: a pool router (Routers.pool) of `pool_size` worker actors, its children, to which
   * the coordinator tells every job, each with where to reply, then sums the replies. The router
   * hands the jobs to the workers round robin (its default), as they come: a worker that finishes
   * early does not take more, as Erlang's pulling workers do. The router is not a unit.
   */
  private static void pekko(Run run) throws Exception {
    int poolSize = run.count("pool_size"), jobs = run.count("jobs"), keys = run.count("keys");
    Map<Integer, Long> table = table(keys);
    Units units = run.units();
    long sum =
        Actors.run(
            run,
            (ActorRef<Long> done) ->
                Behaviors.<Long>setup(
                    context -> {
                      ActorRef<Lookup> pool =
                          context.spawnAnonymous(
                              Routers.pool(
                                  poolSize,
                                  Behaviors.<Lookup>setup(
                                      worker -> new Worker(worker, units, table))));
                      for (int job = 0; job < jobs; job++) {
                        pool.tell(new Lookup(job % keys, context.getSelf()));
                      }
                      return Actors.sum(done, jobs);
                    }));
    run.result("sum", sum);
  }

  private static final class Worker extends Actors.Unit<Lookup> {
    private final Map<Integer, Long> table;

    Worker(ActorContext<Lookup> context, Units units, Map<Integer, Long> table) {
      super(context, units);
      this.table = table;
    }

    @Override
    protected ReceiveBuilder<Lookup> receive(ReceiveBuilder<Lookup> builder) {
      return builder.onMessage(
          Lookup.class,
          job -> {
            job.replyTo().tell(table.get(job.key()));
            return this;
          });
    }
  }
}
