package concbench.lib;

import concbench.kit.Mechanism;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * await-readable and await-writable on the thread and virtual rows: {@code batch} pipes are made
 * before the clocks start; operation i of a batch awaits the readiness of pipe i, which is ready
 * already (a byte waits in it, or it is empty): the cost of asking, not of waiting. Awaits are
 * sequential, as in the seed, by one unit, alive while it runs the loop. An await counts only when
 * readiness of that very end was reported.
 *
 * <p>The JDK's readiness wait is a Selector's select (epoll on Linux, level-triggered, so an end
 * never drained is reported again at every select); each awaited end has a Selector of its own, as
 * poll(2) is given the one descriptor in c/pthread. A platform thread waits in epoll_wait; a
 * virtual thread asks epoll_wait without blocking and, if nothing is ready, parks on the JDK's
 * poller until the selector's descriptor is (JDK 25's EPollSelectorImpl; an older JDK may pin the
 * carrier in epoll_wait instead).
 */
public final class Readiness {
  private Readiness() {}

  /** The thread and virtual mechanisms awaiting {@code ops} (OP_READ or OP_WRITE). */
  public static Map<String, Mechanism> mechanisms(int ops) {
    return Threads.mechanisms(
        (run, threads) -> {
          int batch = run.count("batch");
          // The other ends stay open, so that no awaited end reports a hang-up instead.
          List<AutoCloseable> opened = new ArrayList<>();
          try {
            Selector[] selectors = new Selector[batch];
            for (int i = 0; i < batch; i++) {
              selectors[i] = awaiting(ops, opened);
            }
            long[] ready = {0};
            Threads.startAll(
                run.units(),
                threads,
                1,
                unit ->
                    run.rate(
                        () -> {
                          for (Selector selector : selectors) {
                            selector.select(
                                key -> {
                                  if ((key.readyOps() & ops) != 0) {
                                    ready[0]++;
                                  }
                                });
                          }
                        }));
            run.result("count", ready[0]);
          } finally {
            for (AutoCloseable resource : opened) {
              resource.close();
            }
          }
        });
  }

  /** A pipe whose awaited end is ready for {@code ops}, and a Selector watching it for them. */
  private static Selector awaiting(int ops, List<AutoCloseable> opened) throws IOException {
    Pipe pipe = Pipe.open();
    opened.add(pipe.source());
    opened.add(pipe.sink());
    SelectableChannel awaited;
    if (ops == SelectionKey.OP_READ) {
      pipe.sink().write(ByteBuffer.wrap(new byte[] {'0'}));
      awaited = pipe.source();
    } else {
      awaited = pipe.sink();
    }
    Selector selector = Selector.open();
    opened.add(selector);
    awaited.configureBlocking(false);
    awaited.register(selector, ops);
    return selector;
  }
}
