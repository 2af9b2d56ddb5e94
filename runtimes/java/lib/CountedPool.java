package concbench.lib;

import concbench.kit.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The pool row's executor: a fixed pool of {@code size} platform threads (Executors'
 * newFixedThreadPool, all its threads started at once), whose threads are the run's units, counted
 * around each worker's loop. Closing it shuts the pool down and awaits its threads: the pool
 * reports termination from inside its last worker's loop, so the threads themselves are joined too,
 * so that none is still counted live when the run ends.
 */
public final class CountedPool implements AutoCloseable {
  private final Units units;
  private final List<Thread> threads = new ArrayList<>();
  private final ThreadPoolExecutor executor;

  public CountedPool(Units units, int size) {
    this.units = units;
    executor =
        new ThreadPoolExecutor(
            size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), this::newThread);
    executor.prestartAllCoreThreads();
  }

  /** The pool, to submit to. */
  public ExecutorService executor() {
    return executor;
  }

  private synchronized Thread newThread(Runnable worker) {
    Thread thread = Thread.ofPlatform().unstarted(units.counted(worker));
    threads.add(thread);
    return thread;
  }

  @Override
  public void close() throws InterruptedException {
    executor.close();
    for (Thread thread : threads) {
      thread.join();
    }
  }
}
