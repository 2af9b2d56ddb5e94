package concbench.kit;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A run's units, counted as they start and finish (docs/protocol.md, "Evidence"): every unit calls
 * {@link #start} as the first act of its body and {@link #finish} as its last. Start is three
 * atomic operations on counters the run's units share (started, live, and the peak by
 * compare-and-swap), touched only as a unit starts and ends, never inside its work: less than
 * starting a thread, platform or virtual, costs.
 */
public final class Units {
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong live = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();

  Units() {}

  /** A unit's first act. */
  public void start() {
    started.incrementAndGet();
    // Every change of live is one step in its modification order, so the values
    // incrementAndGet returns are every value it took: their maximum is the peak.
    peak.accumulateAndGet(live.incrementAndGet(), Math::max);
  }

  /** A unit's last act. */
  public void finish() {
    live.decrementAndGet();
  }

  /** {@code body} as a unit's body: counted as it starts and as it finishes. */
  public Runnable counted(Runnable body) {
    return () -> {
      start();
      try {
        body.run();
      } finally {
        finish();
      }
    };
  }

  /**
   * Figures counted elsewhere, for units the run neither starts nor finishes (a library pool's
   * threads, made before the clocks and alive after them): the units, and the most of them alive at
   * once. No other unit of the run may count itself.
   */
  public void tally(long units, long mostAlive) {
    if (started.get() != 0) {
      throw new IllegalStateException("a run counts its units one way");
    }
    started.set(units);
    peak.set(mostAlive);
  }

  long started() {
    return started.get();
  }

  long live() {
    return live.get();
  }

  long peak() {
    return peak.get();
  }
}
