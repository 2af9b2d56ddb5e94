// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
// `first` adds up f, `minimal` the upper bounds it ends with (101 each), and
// `candidates` the candidates the units evaluated.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Lcg;
import concbench.lib.WorkerModes;
import java.util.Map;
import java.util.stream.LongStream;

final class MapShrink implements Workload {
  // A case's result: whether the property holds for its input.
  private static final long HOLDS = 1, FAILS = 0;

  @Override
  public Map<String, Mechanism> mechanisms() {
    return WorkerModes.mechanisms(MapShrink::mapShrink);
  }

  private static void mapShrink(Run run, WorkerModes.Mode mode) throws Exception {
    long[] inputs = Lcg.draws(run.count("cases"), -1_000_000, 1_000_000);
    long[] totals = new long[3]; // first, minimal, candidates
    WorkerModes.run(
        run,
        mode,
        x -> x <= 100 ? HOLDS : FAILS,
        apply -> {
          int f = indexOfFailure(apply.to(inputs));
          if (f < 0) {
            throw new IllegalStateException("none of the cases fails the property");
          }
          Shrunk shrunk = shrink(inputs[f], apply);
          totals[0] += f;
          totals[1] += shrunk.least;
          totals[2] += shrunk.evaluated;
        });
    run.result("first", totals[0]);
    run.result("minimal", totals[1]);
    run.result("candidates", totals[2]);
  }

  private static int indexOfFailure(long[] held) {
    for (int i = 0; i < held.length; i++) {
      if (held[i] == FAILS) {
        return i;
      }
    }
    return -1;
  }

  /** A shrink's outcome: the least failing value, and the candidates evaluated. */
  private record Shrunk(long least, long evaluated) {}

  /** Bisects between 0, which passes, and the failing value. */
  private static Shrunk shrink(long failing, WorkerModes.Apply apply) throws Exception {
    long passing = 0, evaluated = 0;
    while (failing - passing > 1) {
      long from = passing, span = failing - passing;
      long[] candidates =
          LongStream.rangeClosed(1, 8)
              .map(k -> from + span * k / 9)
              .filter(candidate -> candidate != from)
              .distinct()
              .toArray();
      long[] held = apply.to(candidates);
      evaluated += held.length;
      int failed = indexOfFailure(held);
      if (failed < 0) {
        failed = candidates.length; // every candidate passes
      }
      if (failed > 0) {
        passing = candidates[failed - 1];
      }
      if (failed < candidates.length) {
        failing = candidates[failed];
      }
    }
    return new Shrunk(failing, evaluated);
  }
}
