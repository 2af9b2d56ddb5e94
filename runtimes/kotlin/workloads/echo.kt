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
import io.ktor.network.selector.SelectorManager
import io.ktor.network.sockets.InetSocketAddress
import io.ktor.network.sockets.Socket
import io.ktor.network.sockets.SocketAddress
import io.ktor.network.sockets.UnixSocketAddress
import io.ktor.network.sockets.aSocket
import io.ktor.network.sockets.openReadChannel
import io.ktor.network.sockets.openWriteChannel
import io.ktor.network.sockets.toJavaAddress
import io.ktor.utils.io.readAvailable
import io.ktor.utils.io.writeFully
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import java.nio.ByteBuffer
import java.nio.file.Files
import java.util.concurrent.atomic.AtomicInteger

/**
 * Ktor's echo server: the caller's coroutine accepts and launches a coroutine per connection,
 * which reads what is there and writes it back through the socket's channels. kotlinx.coroutines
 * has no sockets of its own; Ktor's network layer brings them: non-blocking channels, one
 * selector thread that resumes a coroutine when its socket is ready, and per socket a reading and
 * a writing coroutine of Ktor's that move the bytes between the socket and its channels.
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
            // Ktor's selector loop runs on Dispatchers.IO, as Ktor's own examples run it.
            SelectorManager(Dispatchers.IO).use { selector ->
                val address = if (tcp) InetSocketAddress("127.0.0.1", 0) else UnixSocketAddress(socketFile.toString())
                // The backlog is connections, which the kernel caps at somaxconn.
                val server = runBlocking { aSocket(selector).tcp().bind(address) { backlogSize = connections } }
                server.use {
                    run.listening(address(server.localAddress))
                    val open = AtomicInteger() // connections open now
                    var held = 0 // their most: open grows only as the caller accepts
                    val echoed = LongArray(connections)
                    run.timedOnDefault {
                        for (c in 0 until connections) {
                            val connection = server.accept()
                            held = maxOf(held, open.incrementAndGet())
                            launchUnit(run.units()) {
                                try {
                                    echoed[c] = echo(connection, size)
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
            }
        } finally {
            Files.deleteIfExists(socketFile)
        }
    }

    /** The address as the harness reads it: "tcp:127.0.0.1:PORT" or "unix:PATH". */
    private fun address(bound: SocketAddress) =
        when (bound) {
            // the address as a literal: Ktor's hostname is the name it resolves to (localhost)
            is InetSocketAddress -> "tcp:${(bound.toJavaAddress() as java.net.InetSocketAddress).address.hostAddress}:${bound.port}"

            is UnixSocketAddress -> "unix:${bound.path}"
        }

    /**
     * Writes back all it reads, up to a buffer of at least [size] bytes at a time, until the client
     * closes; then closes the connection. The bytes written back.
     */
    private suspend fun echo(
        connection: Socket,
        size: Int,
    ): Long {
        connection.use {
            val input = connection.openReadChannel()
            val output = connection.openWriteChannel()
            val buffer = ByteBuffer.allocate(maxOf(size, 4096))
            var bytes = 0L
            while (true) {
                val n = input.readAvailable(buffer)
                if (n < 0) {
                    output.flushAndClose()
                    return bytes
                }
                buffer.flip()
                output.writeFully(buffer)
                output.flush()
                bytes += n
                buffer.clear()
            }
        }
    }
}
