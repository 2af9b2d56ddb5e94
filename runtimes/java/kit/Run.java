package concbench.kit;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of a mechanism: its parameters, and what it reports. What a workload file sees of the
 * kit, with {@link Units}.
 *
 * <p>A mechanism reads its parameters ({@link #count}, {@link #integer}), does the whole job of
 * one run (starts its units, awaits every one of them, closes what it opened), and reports the
 * result ({@link #result}) and the workload's evidence ({@link #evidence}). The kit times the
 * whole call, unless the mechanism hands it its work with {@link #timed}: then only that call is
 * timed, and what the mechanism does before (make the files the work writes into, compile a
 * pattern) and after (read the files' sizes, remove them) is untimed, the protocol's "untimed
 * steps around a run".
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
    throw new IllegalArgumentException("parameter " + name + " is not an integer: " + params.get(name));
  }

  /** The integer parameter {@code name}, as a count of things an array or loop holds. */
  public int count(String name) {
    return Math.toIntExact(integer(name));
  }

  /** Reports one of the values the spec's [expect] names. */
  public void result(String name, long value) {
    result.put(name, value);
  }

  /** Reports one of the counts the spec declares under [evidence]. */
  public void evidence(String name, long count) {
    evidence.put(name, count);
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

  /** The protocol's record of this run, given the clocks around the mechanism's call. */
  Map<String, Object> answer(Clock.Span call) {
    if (units.live() != 0) {
      throw new IllegalStateException(
          units.live() + " units still alive after the run: a mechanism awaits every unit it starts");
    }
    Clock.Span span = timed != null ? timed : call;
    Map<String, Object> answer = new HashMap<>();
    answer.put("wall_ns", Math.max(span.stop().wall() - span.start().wall(), 1));
    answer.put("user_ns", span.stop().user() - span.start().user());
    answer.put("sys_ns", span.stop().sys() - span.start().sys());
    answer.put("units", units.started());
    answer.put("peak_live", units.peak());
    answer.put("result", result);
    if (!evidence.isEmpty()) {
      answer.put("evidence", evidence);
    }
    return answer;
  }
}
