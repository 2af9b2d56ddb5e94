// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM socket pair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
package concbench.workloads

import concbench.coroutines.Streams
import concbench.kit.Mechanism
import concbench.kit.Workload
import concbench.lib.Streams.Ends
import java.net.StandardProtocolFamily
import java.net.UnixDomainSocketAddress
import java.nio.channels.ServerSocketChannel
import java.nio.channels.SocketChannel
import java.nio.file.Files

/**
 * The JDK has no socketpair: as the Java kit does, each pair is a Unix-domain SocketChannel
 * connected to one accepted from a server channel bound on a path in the scratch directory, then
 * closed and the path removed, all before the clocks (lib/Streams.kt).
 */
class Socketpair : Workload {
    override fun mechanisms() =
        mapOf(
            "coroutine" to
                Mechanism { run ->
                    Streams.run(run) { g ->
                        val address = UnixDomainSocketAddress.of(run.scratch().resolve("socketpair-$g"))
                        ServerSocketChannel.open(StandardProtocolFamily.UNIX).use { server ->
                            server.bind(address)
                            try {
                                val writer = SocketChannel.open(address)
                                Ends(server.accept(), writer) { writer.shutdownOutput() }
                            } finally {
                                Files.delete(address.path)
                            }
                        }
                    }
                },
        )
}
