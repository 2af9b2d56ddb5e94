package concbench.lib;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.Lock;

/**
 * One unit's count of the waits its evidence declares: puts that found a queue full and takes that
 * found it empty (blocked), or acquisitions that found a lock held (contended). Each try without
 * waiting comes first, and only if it fails the call that waits. A unit owns its instance: the
 * counts are summed after the units are awaited.
 */
public final class Waits {
  private long count;

  /** The waits counted so far. */
  public long count() {
    return count;
  }

  /** Puts {@code value}, counting a wait if the queue was full. */
  public <T> void put(BlockingQueue<T> queue, T value) throws InterruptedException {
    if (!queue.offer(value)) {
      count++;
      queue.put(value);
    }
  }

  /** Takes a value, counting a wait if the queue was empty. */
  public <T> T take(BlockingQueue<T> queue) throws InterruptedException {
    T value = queue.poll();
    if (value != null) {
      return value;
    }
    count++;
    return queue.take();
  }

  /** Takes the lock, counting a wait if it was held. */
  public void lock(Lock lock) {
    if (!lock.tryLock()) {
      count++;
      lock.lock();
    }
  }

  /** The sum of the units' counts. */
  public static long total(Waits[] waits) {
    long total = 0;
    for (Waits unit : waits) {
      total += unit.count;
    }
    return total;
  }

  /** One fresh count for each of {@code n} units. */
  public static Waits[] forUnits(int n) {
    Waits[] waits = new Waits[n];
    for (int i = 0; i < n; i++) {
      waits[i] = new Waits();
    }
    return waits;
  }
}
