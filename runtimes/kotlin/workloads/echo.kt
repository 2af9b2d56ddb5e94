// Echo (workloads/echo.toml): a server under concbench's load generator.
// Before the clocks it listens on a loopback TCP port (or a Unix socket) and
// says where; timed, it accepts `connections` connections and, on each,
// writes back every byte it reads until the client closes, then closes it.
package concbench.workloads

import concbench.coroutines.launchUnit
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.net.InetSocketAddress
import java.net.SocketAddress
import java.net.StandardProtocolFamily
import java.net.StandardSocketOptions
import java.net.UnixDomainSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.ServerSocketChannel
import java.nio.channels.SocketChannel
import java.nio.file.Files
import java.util.concurrent.atomic.AtomicInteger

/**
 * A coroutine per connection, launched by the caller's coroutine as it accepts. kotlinx.coroutines
 * has no sockets of its own: the accept and every read and write are blocking calls on
 * java.nio's channels (as the Java kit's), each in withContext on
 * Dispatchers.IO.limitedParallelism(connections + 1), a view of the library's pool for blocking
 * calls with a thread for the accept and for every connection, each of which may wait in a read at
 * once.
 */
class Echo : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::serve))

    private fun serve(run: Run) {
        val connections = run.count("connections")
        val size = run.count("size")
        val tcp = run.choice("transport") == "tcp"
        val socketFile = run.scratch().resolve("echo.sock")
        Files.deleteIfExists(socketFile) // an earlier run's, had it failed
        try {
            ServerSocketChannel.open(if (tcp) StandardProtocolFamily.INET else StandardProtocolFamily.UNIX).use { server ->
                // The backlog is connections, which the kernel caps at somaxconn.
                server.bind(if (tcp) InetSocketAddress("127.0.0.1", 0) else UnixDomainSocketAddress.of(socketFile), connections)
                run.listening(address(server.localAddress))
                val blocking = Dispatchers.IO.limitedParallelism(connections + 1)
                val open = AtomicInteger() // connections open now
                var held = 0 // their most: open grows only as the caller accepts
                val echoed = LongArray(connections)
                run.timedOnDefault {
                    for (c in 0 until connections) {
                        val connection = withContext(blocking) { server.accept() }
                        held = maxOf(held, open.incrementAndGet())
                        launchUnit(run.units()) {
                            try {
                                echoed[c] = echo(connection, tcp, size, blocking)
                            } finally {
                                open.decrementAndGet()
                            }
                        }
                    }
                }
                run.result("connections", echoed.size.toLong())
                run.result("bytes", echoed.sum())
                run.evidence("held", held.toLong())
            }
        } finally {
            Files.deleteIfExists(socketFile)
        }
    }

    /** The address as the harness reads it: "tcp:127.0.0.1:PORT" or "unix:PATH". */
    private fun address(bound: SocketAddress) =
        when (bound) {
            is InetSocketAddress -> "tcp:${bound.hostString}:${bound.port}"
            is UnixDomainSocketAddress -> "unix:${bound.path}"
            else -> error("bound to $bound")
        }

    /**
     * Writes back all it reads, a buffer of at least [size] bytes at a time, until the client
     * closes; then closes the connection. The bytes written back.
     */
    private suspend fun echo(
        connection: SocketChannel,
        tcp: Boolean,
        size: Int,
        blocking: CoroutineDispatcher,
    ): Long {
        connection.use {
            if (tcp) {
                connection.setOption(StandardSocketOptions.TCP_NODELAY, true)
            }
            val buffer = ByteBuffer.allocateDirect(maxOf(size, 4096))
            var bytes = 0L
            while (true) {
                val n = withContext(blocking) { connection.read(buffer) }
                if (n < 0) {
                    return bytes
                }
                buffer.flip()
                while (buffer.hasRemaining()) { // a short write goes on where it stopped
                    withContext(blocking) { connection.write(buffer) }
                }
                bytes += n
                buffer.clear()
            }
        }
    }
}
