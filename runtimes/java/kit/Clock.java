package concbench.kit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The clocks around a run: {@link System#nanoTime} (monotonic) and the process's user and system
 * CPU time, all its threads. The JDK gives the CPU time only as one sum (OperatingSystemMXBean) or
 * per thread, so the two are read from /proc/self/stat, in clock ticks of 10 ms (USER_HZ is 100 on
 * Linux whatever the kernel's own tick): a run's CPU times are that coarse.
 */
final class Clock {
  private static final Path STAT = Path.of("/proc/self/stat");
  private static final long NANOS_PER_TICK = 10_000_000;

  record Moment(long wall, long user, long sys) {}

  record Span(Moment start, Moment stop) {}

  private Clock() {}

  static Moment now() {
    long wall = System.nanoTime();
    String stat;
    try {
      stat = Files.readString(STAT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // The fields after the command's closing parenthesis, from the third (state):
    // utime and stime are the 14th and 15th.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new Moment(
        wall,
        Long.parseLong(fields[11]) * NANOS_PER_TICK,
        Long.parseLong(fields[12]) * NANOS_PER_TICK);
  }
}
