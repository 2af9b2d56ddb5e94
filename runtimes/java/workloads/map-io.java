// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Lcg;
import concbench.lib.WorkerModes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

final class MapIo implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return WorkerModes.mechanisms(MapIo::mapIo);
  }

  /** The file's content with {@code n} characters appended: its length. */
  private static long readAndAppend(Path path, long n) throws Exception {
    byte[] content = Files.readAllBytes(path);
    byte[] appended = Arrays.copyOf(content, content.length + Math.toIntExact(n));
    Arrays.fill(appended, content.length, appended.length, (byte) 'x');
    return appended.length;
  }

  private static void mapIo(Run run, WorkerModes.Mode mode) throws Exception {
    Path path = run.scratch().resolve("map-io");
    byte[] content = new byte[run.count("file_size")];
    Arrays.fill(content, (byte) 'x');
    Files.write(path, content);
    try {
      long[] inputs = Lcg.draws(run.count("cases"), 0, 10);
      long[] length = {0};
      WorkerModes.run(
          run,
          mode,
          n -> readAndAppend(path, n),
          apply -> length[0] += Arrays.stream(apply.to(inputs)).sum());
      run.result("length", length[0]);
    } finally {
      Files.delete(path);
    }
  }
}
