package concbench.lib;

import concbench.kit.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pool row's executor: a fixed pool of {@code size} platform threads (Executors'
 * newFixedThreadPool, all its threads started at once, as Ruby's and Python's pools start their
 * workers). Its threads are the run's units, and a thread counts as live while it runs a job, not
 * while it waits for one: counted from its start to its end, every thread would be alive at once by
 * construction, parked in the pool until it closes, however few ran jobs together (Ruby's and
 * Python's workers end as their queue runs dry). The count costs three atomic operations a job, on
 * counters the threads share. Closing it shuts the pool down and joins its threads, then reports
 * the units: the threads it started, and the most of them that ran jobs at once.
 */
public final class CountedPool implements AutoCloseable {
  private final Units units;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong running = new AtomicLong(); // threads running a job now
  private final AtomicLong peak = new AtomicLong();
  private final ThreadPoolExecutor executor;

  public CountedPool(Units units, int size) {
    this.units = units;
    executor =
        new ThreadPoolExecutor(
            size, size, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), this::newThread) {
          @Override
          protected void beforeExecute(Thread thread, Runnable job) {
            // Every change of running is one step in its modification order, so the
            // values incrementAndGet returns are every value it took: their maximum is the peak.
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
          }

          @Override
          protected void afterExecute(Runnable job, Throwable failure) {
            running.decrementAndGet();
          }
        };
    executor.prestartAllCoreThreads();
  }

  /** The pool, to submit to. */
  public ExecutorService executor() {
    return executor;
  }

  private synchronized Thread newThread(Runnable worker) {
    Thread thread = Thread.ofPlatform().unstarted(worker);
    threads.add(thread);
    return thread;
  }

  /**
   * The pool reports termination from inside its last thread's loop, so the threads themselves are
   * joined too: none is still running when the run ends.
   */
  @Override
  public synchronized void close() throws InterruptedException {
    executor.close();
    for (Thread thread : threads) {
      thread.join();
    }
    units.tally(threads.size(), peak.get());
  }
}
