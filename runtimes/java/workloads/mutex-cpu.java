// Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one lock and one
// counter; each of `workers` units, in its iteration i of `iterations`,
// makes the subject, "foobar" * 100 followed by i (a new string each time,
// so that no engine answers from an earlier match), locks, reads the group's
// counter, matches /foo(.+)$/ against the subject, writes back the counter
// read plus the capture's length (597 plus i's digits) and unlocks.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Threads;
import concbench.lib.Waits;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The engine is java.util.regex (a backtracking engine, as PCRE2 and Onigmo are), the pattern
 * compiled before the clocks (a Pattern is safe for concurrent use; each match makes a Matcher).
 * The lock is a ReentrantLock. contended: acquisitions whose tryLock failed, each then taken with
 * lock (lib.Waits); each worker counts its own, summed after the join.
 */
final class MutexCpu implements Workload {
  private static final Pattern PATTERN = Pattern.compile("foo(.+)$");
  private static final String PREFIX = "foobar".repeat(100);

  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(MutexCpu::mutexCpu);
  }

  private static final class Group {
    final ReentrantLock lock = new ReentrantLock();
    long counter; // guarded by lock
  }

  private static void mutexCpu(Run run, ThreadFactory threads) throws Exception {
    int groups = run.count("groups"), workers = run.count("workers");
    long iterations = run.integer("iterations");
    Group[] gs = Stream.generate(Group::new).limit(groups).toArray(Group[]::new);
    Waits[] contended = Waits.forUnits(groups * workers);
    run.timed(
        () ->
            Threads.startAll(
                run.units(),
                threads,
                groups * workers,
                w -> {
                  for (long i = 0; i < iterations; i++) {
                    String subject = PREFIX + i;
                    matchLocked(gs[w / workers], subject, contended[w]);
                  }
                }));
    long sum = 0;
    for (Group group : gs) {
      sum += group.counter;
    }
    run.result("sum", sum);
    run.evidence("contended", Waits.total(contended));
  }

  private static void matchLocked(Group group, String subject, Waits contended) {
    contended.lock(group.lock);
    try {
      long seen = group.counter;
      Matcher capture = PATTERN.matcher(subject);
      if (!capture.find()) {
        throw new IllegalStateException("the pattern did not match");
      }
      group.counter = seen + capture.end(1) - capture.start(1);
    } finally {
      group.lock.unlock();
    }
  }
}
