package concbench.coroutines

import concbench.kit.Run
import concbench.lib.Streams.Ends
import concbench.lib.Streams.Finish
import concbench.lib.Streams.Opener
import io.ktor.network.selector.SelectInterest
import io.ktor.network.selector.SelectorManager
import kotlinx.coroutines.Dispatchers
import java.nio.ByteBuffer
import java.nio.channels.SelectableChannel

/**
 * pipe and socketpair on the coroutine row, as the Java kit's lib.Streams runs them on threads:
 * per group, a pair of channels (its Ends, made by its Opener before the clocks and closed after),
 * a writer unit writing `messages` blocks of `size` bytes and then ending its stream, and a reader
 * unit reading `size` bytes a call until end of stream and counting them. kotlinx.coroutines has
 * no pipe or socket of its own: the channels are non-blocking, and a unit that finds its channel
 * empty or full suspends until Ktor's selector finds it ready (lib/Readiness.kt).
 */
object Streams {
    fun run(
        run: Run,
        opener: Opener,
    ) {
        val groups = run.count("groups")
        val size = run.count("size")
        val messages = run.integer("messages")
        val ends = arrayOfNulls<Ends>(groups)
        try {
            for (g in 0 until groups) {
                ends[g] = opener.open(g)
            }
            // Unit 2g writes group g's stream, unit 2g + 1 reads it.
            val watched =
                List(2 * groups) { u ->
                    val group = ends[u / 2]!!
                    if (u % 2 == 0) {
                        Watched(group.writer() as SelectableChannel, SelectInterest.WRITE)
                    } else {
                        Watched(group.reader() as SelectableChannel, SelectInterest.READ)
                    }
                }
            val read = LongArray(groups)
            // Ktor's selector loop runs on Dispatchers.IO, as Ktor's own examples run it.
            SelectorManager(Dispatchers.IO).use { selector ->
                run.timedOnDefault {
                    launchUnits(run.units(), 2 * groups) { u ->
                        if (u % 2 == 0) {
                            write(watched[u], ends[u / 2]!!.finish(), messages, size, selector)
                        } else {
                            read[u / 2] = readAll(watched[u], size, selector)
                        }
                    }
                }
            }
            run.result("bytes", read.sum())
        } finally {
            ends.filterNotNull().forEach {
                it.reader().close()
                it.writer().close()
            }
        }
    }

    private suspend fun write(
        writer: Watched,
        finish: Finish,
        messages: Long,
        size: Int,
        selector: SelectorManager,
    ) {
        writer.use {
            val block = ByteBuffer.allocateDirect(size)
            while (block.hasRemaining()) {
                block.put('x'.code.toByte())
            }
            for (m in 0 until messages) {
                block.rewind()
                selector.writeAll(writer, block)
            }
            finish.run()
        }
    }

    private suspend fun readAll(
        reader: Watched,
        size: Int,
        selector: SelectorManager,
    ): Long {
        reader.use {
            val buffer = ByteBuffer.allocateDirect(size)
            var total = 0L
            while (true) {
                val n = selector.read(reader, buffer)
                if (n < 0) {
                    return total
                }
                total += n
                buffer.clear()
            }
        }
    }
}
