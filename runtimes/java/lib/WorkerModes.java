package concbench.lib;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * map-trivial, map-cpu, map-io and map-shrink, Pbt's worker modes (seed 001), alike for every
 * mechanism: one operation is one evaluation, which the workload makes with the mechanism's map of
 * its evaluate function over a list of inputs (results in the inputs' order). The kit's loop runs
 * {@code batch} evaluations a batch.
 */
public final class WorkerModes {
  /** A case's evaluation: its result from its input. */
  @FunctionalInterface
  public interface Evaluate {
    long of(long input) throws Exception;
  }

  /** A mechanism's map: the results of evaluating {@code inputs}, in their order. */
  @FunctionalInterface
  public interface Apply {
    long[] to(long[] inputs) throws Exception;
  }

  /** One evaluation of the workload, made with a mechanism's map. */
  @FunctionalInterface
  public interface Evaluation {
    void with(Apply apply) throws Exception;
  }

  /** A map workload: it sets up, then calls {@link #run} with {@code mode}. */
  @FunctionalInterface
  public interface MapWorkload {
    void run(Run run, Mode mode) throws Exception;
  }

  /** The worker modes, one a mechanism. */
  public enum Mode {
    /** Threads made for each evaluation, striped: platform threads (thread) or virtual ones. */
    THREAD,
    VIRTUAL,
    /** A parallel stream over the cases, on a ForkJoinPool made before the clocks (pool). */
    POOL
  }

  private WorkerModes() {}

  /** The thread, virtual and pool mechanisms of a map workload. */
  public static Map<String, Mechanism> mechanisms(MapWorkload workload) {
    return Map.of(
        "thread", run -> workload.run(run, Mode.THREAD),
        "virtual", run -> workload.run(run, Mode.VIRTUAL),
        "pool", run -> workload.run(run, Mode.POOL));
  }

  /** Runs the rate loop: {@code evaluation} once an operation, with {@code mode}'s map. */
  public static void run(Run run, Mode mode, Evaluate evaluate, Evaluation evaluation)
      throws Exception {
    long batch = run.integer("batch");
    int workers = run.count("workers");
    if (workers == 0) {
      workers = Runtime.getRuntime().availableProcessors();
    }
    if (mode == Mode.POOL) {
      try (Pooled pooled = new Pooled(workers)) {
        loop(run, batch, evaluation, inputs -> pooled.map(inputs, evaluate));
        run.stopClocks(); // nothing is outstanding: the pool's end is untimed
        pooled.report(run.units());
      }
      return;
    }
    ThreadFactory threads =
        (mode == Mode.THREAD ? Thread.ofPlatform() : Thread.ofVirtual()).factory();
    int stripes = workers;
    loop(
        run, batch, evaluation, inputs -> striped(run.units(), threads, stripes, inputs, evaluate));
  }

  private static void loop(Run run, long batch, Evaluation evaluation, Apply apply)
      throws Exception {
    run.rate(
        () -> {
          for (long i = 0; i < batch; i++) {
            evaluation.with(apply);
          }
        });
  }

  /**
   * {@code workers} threads made for each evaluation, no more than there are cases (as
   * Parallel.map, which Pbt calls, does); unit w of n evaluates the cases w, w + n, ..., each
   * result written into its case's slot.
   */
  private static long[] striped(
      Units units, ThreadFactory threads, int workers, long[] inputs, Evaluate evaluate)
      throws Exception {
    long[] results = new long[inputs.length];
    int n = Math.min(workers, inputs.length);
    Threads.startAll(
        units,
        threads,
        n,
        w -> {
          for (int i = w; i < inputs.length; i += n) {
            results[i] = evaluate.of(inputs[i]);
          }
        });
    return results;
  }

  /**
   * A ForkJoinPool of {@code workers} threads, made before the clocks and used as is: each
   * evaluation is a parallel stream over the cases, collected in order, run inside the pool (a
   * parallel stream forks into the pool of the thread that runs it), while the caller waits. Its
   * threads outlive the evaluations, so none of them is started or finished by one: its units are
   * counted as the Rust kit counts rayon's, the pool's threads that ran a case of the run, and live
   * the most of them that ran cases of one evaluation. A case costs a read of its thread's field (a
   * write and an increment the first time in an evaluation).
   */
  private static final class Pooled implements AutoCloseable {
    private final List<Worker> workers = new ArrayList<>();
    private final ForkJoinPool pool;
    private final AtomicLong ran =
        new AtomicLong(); // the threads that ran a case of this evaluation
    private long evaluations;
    private long peak;

    Pooled(int parallelism) {
      pool = new ForkJoinPool(parallelism, this::newWorker, null, false);
    }

    private synchronized ForkJoinWorkerThread newWorker(ForkJoinPool owner) {
      Worker worker = new Worker(owner);
      workers.add(worker);
      return worker;
    }

    long[] map(long[] inputs, Evaluate evaluate) throws Exception {
      long evaluation = ++evaluations;
      ran.set(0);
      try {
        long[] results =
            pool.submit(
                    () ->
                        IntStream.range(0, inputs.length)
                            .parallel()
                            .mapToLong(
                                i -> {
                                  // Only the pool's threads run the stream's cases: a caller
                                  // outside a pool helps
                                  // only the common pool (ForkJoinTask.awaitDone).
                                  ((Worker) Thread.currentThread()).ran(evaluation, ran);
                                  try {
                                    return evaluate.of(inputs[i]);
                                  } catch (Exception e) {
                                    throw new CaseFailed(e);
                                  }
                                })
                            .toArray())
                .get();
        peak = Math.max(peak, ran.get());
        return results;
      } catch (ExecutionException e) {
        if (e.getCause() instanceof CaseFailed failed) {
          throw failed.failure;
        }
        throw e;
      }
    }

    synchronized void report(Units units) {
      units.tally(workers.stream().filter(Worker::ranAny).count(), peak);
    }

    @Override
    public void close() {
      pool.close();
    }
  }

  /** A pool's thread, which knows the last evaluation it ran a case of. */
  private static final class Worker extends ForkJoinWorkerThread {
    private long evaluation; // written by this thread only; read by report after the pool's end

    Worker(ForkJoinPool pool) {
      super(null, pool, true);
    }

    void ran(long current, AtomicLong ran) {
      if (evaluation != current) {
        evaluation = current;
        ran.incrementAndGet();
      }
    }

    boolean ranAny() {
      return evaluation != 0;
    }
  }

  /** A case's checked exception, carried out of the stream. */
  private static final class CaseFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient Exception failure;

    CaseFailed(Exception failure) {
      super(failure);
      this.failure = failure;
    }
  }
}
