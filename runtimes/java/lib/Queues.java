package concbench.lib;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** The queues of the mailbox and queue workloads. */
public final class Queues {
  private Queues() {}

  /** A queue of at most {@code capacity} items, 0 meaning no bound. */
  public static <T> BlockingQueue<T> bounded(int capacity) {
    return capacity == 0 ? new LinkedBlockingQueue<>() : new ArrayBlockingQueue<>(capacity);
  }
}
