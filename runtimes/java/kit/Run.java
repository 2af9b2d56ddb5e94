package concbench.kit;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of a mechanism: its parameters, and what it reports. What a workload file sees of the
 * kit, with {@link Units}.
 *
 * <p>A mechanism reads its parameters ({@link #count}, {@link #integer}), does the whole job of one
 * run (starts its units, awaits every one of them, closes what it opened), and reports the result
 * ({@link #result}) and the workload's evidence ({@link #evidence}). The kit times the whole call,
 * unless the mechanism hands it its work with {@link #timed}: then only that call is timed, and
 * what the mechanism does before (make the files the work writes into, compile a pattern) and after
 * (read the files' sizes, remove them) is untimed, the protocol's "untimed steps around a run".
 *
 * <p>Rate workloads (docs/protocol.md, "Rate workloads"): the mechanism sets up, then hands the kit
 * one batch of {@code batch} operations with {@link #rate}, which starts the clocks and runs it
 * until {@code seconds} have passed, reading the clock once a batch; the mechanism then, still
 * timed, awaits what is outstanding and returns, and the kit stops the clocks (or the mechanism
 * stops them with {@link #stopClocks}, to clean up untimed). A {@code gc} of "off" is not honoured:
 * a JVM's collector is chosen at its launch, and none of the JDK's can be turned off while it runs
 * (the runtime's flags name the collector).
 *
 * <p>Servers (workloads/echo.toml): the mechanism opens its listener before the clocks and says
 * where with {@link #listening}, then serves in its {@link #timed} work.
 *
 * <p>Evidence: each unit counts its events (a tryLock that failed, an offer that found the queue
 * full) in a variable of its own; the mechanism sums them after it has awaited its units.
 */
public final class Run {
  /** Work the kit times. */
  @FunctionalInterface
  public interface Work {
    void run() throws Exception;
  }

  private final Map<String, Object> params;
  private final Path scratch;
  private final Units units = new Units();
  private final Map<String, Long> result = new TreeMap<>();
  private final Map<String, Long> evidence = new TreeMap<>();
  private Clock.Span timed;
  private Clock.Moment rate; // set by rate: where its clocks started
  private Clock.Moment rateStopped; // set by stopClocks: where they stopped, if before the return
  private long batches; // run by rate
  private long deadline; // the rate loop's, on the wall clock

  Run(Map<String, Object> params, Path scratch) {
    this.params = params;
    this.scratch = scratch;
  }

  /** The run's unit counter. */
  public Units units() {
    return units;
  }

  /** An empty directory the trial may use. */
  public Path scratch() {
    return scratch;
  }

  /** The integer parameter {@code name} (the harness validated it: a bad one is a kit bug). */
  public long integer(String name) {
    if (params.get(name) instanceof Long value) {
      return value;
    }
    throw new IllegalArgumentException(
        "parameter " + name + " is not an integer: " + params.get(name));
  }

  /** The integer parameter {@code name}, as a count of things an array or loop holds. */
  public int count(String name) {
    return Math.toIntExact(integer(name));
  }

  /** The number parameter {@code name} (a rate workload's seconds). */
  public double number(String name) {
    if (params.get(name) instanceof Number value) {
      return value.doubleValue();
    }
    throw new IllegalArgumentException(
        "parameter " + name + " is not a number: " + params.get(name));
  }

  /** The string parameter {@code name} (a choice such as mode). */
  public String choice(String name) {
    if (params.get(name) instanceof String value) {
      return value;
    }
    throw new IllegalArgumentException(
        "parameter " + name + " is not a string: " + params.get(name));
  }

  /** Reports one of the values the spec's [expect] names. */
  public void result(String name, long value) {
    result.put(name, value);
  }

  /** Reports one of the counts the spec declares under [evidence]. */
  public void evidence(String name, long count) {
    evidence.put(name, count);
  }

  /**
   * Says that the run's server listens on {@code address} ("tcp:HOST:PORT" or "unix:PATH"): a line
   * on the protocol's stdout, before the answer, which the harness reads as it comes and hands to
   * its load generator; flushed at once.
   */
  public void listening(String address) {
    Main.ANSWERS.println(Json.write(Map.of("listening", address)));
    Main.ANSWERS.flush();
  }

  /** Runs the run's work, the only part the kit then times. */
  public void timed(Work work) throws Exception {
    if (timed != null) {
      throw new IllegalStateException("timed called twice in one run");
    }
    Clock.Moment start = Clock.now();
    work.run();
    timed = new Clock.Span(start, Clock.now());
  }

  /**
   * Starts the clocks and runs {@code batch}, one batch of operations, until the time box has
   * passed (at least once); the clocks stop when the mechanism returns.
   */
  public void rate(Work batch) throws Exception {
    startRate();
    do {
      batch.run();
    } while (ranBatch());
  }

  /**
   * The loop of {@link #rate} for a mechanism that runs its batches itself, where a batch cannot be
   * a {@link Work} (a Kotlin coroutine's, which suspends inside it): starts the clocks; the
   * mechanism then calls {@link #ranBatch} after each batch, until it returns false.
   */
  public void startRate() {
    if (rate != null || timed != null) {
      throw new IllegalStateException("rate called twice, or with timed, in one run");
    }
    rate = Clock.now();
    deadline = rate.wall() + Math.round(number("seconds") * 1e9);
  }

  /** Counts a batch of the rate loop; whether the time box is still open. */
  public boolean ranBatch() {
    batches++;
    return System.nanoTime() - deadline < 0;
  }

  /**
   * Stops a rate loop's clocks before the mechanism returns, once nothing is outstanding: what
   * follows (closing a pool made before the clocks) is untimed.
   */
  public void stopClocks() {
    if (rate == null || rateStopped != null) {
      throw new IllegalStateException("stopClocks before rate, or twice");
    }
    rateStopped = Clock.now();
  }

  /** The protocol's record of this run, given the clocks around the mechanism's call. */
  Map<String, Object> answer(Clock.Span call, boolean isRate) {
    if (isRate != (rate != null)) {
      throw new IllegalStateException(
          isRate
              ? "a rate workload's mechanism must hand the kit its batches (Run.rate)"
              : "Run.rate in a fixed workload");
    }
    if (units.live() != 0) {
      throw new IllegalStateException(
          units.live()
              + " units still alive after the run: a mechanism awaits every unit it starts");
    }
    Clock.Moment rateStop = rateStopped != null ? rateStopped : call.stop();
    Clock.Span span = timed != null ? timed : rate != null ? new Clock.Span(rate, rateStop) : call;
    Map<String, Object> answer = new HashMap<>();
    answer.put("wall_ns", Math.max(span.stop().wall() - span.start().wall(), 1));
    answer.put("user_ns", span.stop().user() - span.start().user());
    answer.put("sys_ns", span.stop().sys() - span.start().sys());
    answer.put("units", units.started());
    answer.put("peak_live", units.peak());
    answer.put("result", result);
    if (rate != null) {
      answer.put("ops", batches * integer("batch"));
    }
    if (!evidence.isEmpty()) {
      answer.put("evidence", evidence);
    }
    return answer;
  }
}
