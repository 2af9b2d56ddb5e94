// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and closes
// its end, the reader reads until EOF and counts the bytes.
package concbench.workloads

import concbench.coroutines.Streams
import concbench.kit.Mechanism
import concbench.kit.Workload
import concbench.lib.Streams.Ends

/**
 * java.nio.channels.Pipe, which on Linux is pipe2 (as the Java kit's), made before the clocks;
 * closing the sink ends the stream (lib/Streams.kt).
 */
class Pipe : Workload {
    override fun mechanisms() =
        mapOf(
            "coroutine" to
                Mechanism { run ->
                    Streams.run(run) {
                        // named in full: this class is Pipe, after the workload's id
                        val pipe =
                            java.nio.channels.Pipe
                                .open()
                        Ends(pipe.source(), pipe.sink()) {}
                    }
                },
        )
}
