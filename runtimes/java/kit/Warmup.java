package concbench.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The warm-up runs a trial takes: the request's {@code warmup}, or, where it asks for a steady
 * warm-up, groups of runs until the last {@code window} groups lie within {@code spread} of each
 * other or {@code most} runs have run, each run judged by its {@code measure}: wall time, or CPU
 * time (user + system). The rule is the harness's (src/concbench/warmup.py), which checks that the
 * runs stopped where it says; its arithmetic is copied exactly.
 */
final class Warmup {
  private final long least;
  private final long group;
  private final long most;
  private final int window;
  private final double spread;
  private final boolean cpu;
  private final List<Double> costs = new ArrayList<>();
  private double groupCost;
  private long taken;

  Warmup(Map<?, ?> request) {
    least = (Long) request.get("warmup");
    if (request.get("steady") instanceof Map<?, ?> steady) {
      group = (Long) steady.get("group");
      most = (Long) steady.get("most");
      window = ((Long) steady.get("window")).intValue();
      spread = ((Number) steady.get("spread")).doubleValue();
      cpu = "cpu".equals(steady.get("measure"));
    } else {
      group = 1;
      most = least;
      window = 0;
      spread = 0;
      cpu = false;
    }
  }

  /** Whether another group of warm-up runs is due. */
  boolean due() {
    return taken < most && (taken < least || !steady());
  }

  long group() {
    return group;
  }

  /** Counts a warm-up run's answer. */
  void ran(Map<String, Object> run) {
    Object ops = run.get("ops");
    long per = ops == null || (Long) ops == 0 ? 1 : (Long) ops;
    long spent =
        cpu ? (Long) run.get("user_ns") + (Long) run.get("sys_ns") : (Long) run.get("wall_ns");
    groupCost += (double) spent / per;
    if (++taken % group == 0) {
      costs.add(groupCost);
      groupCost = 0;
    }
  }

  private boolean steady() {
    if (window == 0 || costs.size() < window) {
      return false;
    }
    List<Double> last = costs.subList(costs.size() - window, costs.size());
    double min = last.stream().min(Double::compare).orElseThrow();
    double max = last.stream().max(Double::compare).orElseThrow();
    return max <= (1 + spread) * min;
  }
}
