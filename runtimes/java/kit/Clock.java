package concbench.kit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The clocks around a run: {@link System#nanoTime} (monotonic) and the process's user and system
 * CPU time, all its threads, from getrusage(RUSAGE_SELF) called through the FFM API, as the C, Ruby
 * and Python kits read theirs. The JDK itself gives the CPU time only as one sum
 * (OperatingSystemMXBean) or per thread, and /proc/self/stat splits it in clock ticks of 10 ms (up
 * to 20% of a 50 ms run). getrusage's are in microseconds: Linux keeps the sum to the nanosecond
 * and splits it into user and system in the proportion its ticks sampled, so the sum is exact and
 * the split as fine as the run is long.
 */
final class Clock {
  private static final int RUSAGE_SELF = 0;
  // struct rusage on 64-bit Linux: ru_utime and ru_stime, each a struct timeval
  // (tv_sec, tv_usec: two longs), then 14 longs.
  private static final long RUSAGE_SIZE = 144, UTIME = 0, STIME = 16, USEC = 8;
  private static final MethodHandle GETRUSAGE =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("getrusage").orElseThrow(),
              FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
  // Read by one thread at a time: the kit's, or a unit running the rate loop (yield), which the
  // kit's thread joins before it reads the clocks again.
  private static final MemorySegment USAGE = Arena.global().allocate(RUSAGE_SIZE, 8);

  record Moment(long wall, long user, long sys) {}

  record Span(Moment start, Moment stop) {}

  private Clock() {}

  static Moment now() {
    long wall = System.nanoTime();
    int failed;
    try {
      failed = (int) GETRUSAGE.invokeExact(RUSAGE_SELF, USAGE);
    } catch (Throwable e) {
      throw new IllegalStateException("getrusage", e);
    }
    if (failed != 0) {
      throw new IllegalStateException("getrusage failed");
    }
    return new Moment(wall, nanos(UTIME), nanos(STIME));
  }

  private static long nanos(long timeval) {
    return USAGE.get(JAVA_LONG, timeval) * 1_000_000_000L
        + USAGE.get(JAVA_LONG, timeval + USEC) * 1_000L;
  }
}
