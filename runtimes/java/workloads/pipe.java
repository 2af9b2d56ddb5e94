// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and closes
// its end, the reader reads until EOF and counts the bytes.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Streams;
import concbench.lib.Threads;
import java.util.Map;

/**
 * java.nio.channels.Pipe: on Linux the JDK makes it with pipe2 (sun.nio.ch.PipeImpl, an OS pipe, as
 * the other kits'; on Windows it would be a socket). The pipes are made before the clocks
 * (lib.Streams); closing the sink ends the stream.
 */
final class Pipe implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(
        (run, threads) ->
            Streams.run(
                run,
                threads,
                g -> {
                  // named in full: this class is Pipe, after the workload's id
                  java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
                  return new Streams.Ends(pipe.source(), pipe.sink(), () -> {});
                }));
  }
}
