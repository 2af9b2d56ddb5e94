package concbench.coroutines

import concbench.kit.Run
import concbench.lib.Streams.Ends
import concbench.lib.Streams.Opener
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.nio.ByteBuffer

/**
 * pipe and socketpair on the coroutine row, as the Java kit's lib.Streams runs them on threads:
 * per group, a pair of blocking channels (its Ends, made by its Opener before the clocks and
 * closed after), a writer unit writing `messages` blocks of `size` bytes and then ending its
 * stream, and a reader unit reading `size` bytes a call until end of stream and counting them.
 * kotlinx.coroutines has no pipe or socket of its own: each read and write is a blocking call in
 * withContext on Dispatchers.IO.limitedParallelism(2 x groups), a view of the library's pool for
 * blocking calls with a thread for every unit that may block at once (Dispatchers.IO itself has
 * 64, and 64 readers blocked on pipes whose writers wait for a thread would never wake).
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
            val blocking = Dispatchers.IO.limitedParallelism(2 * groups)
            val read = LongArray(groups)
            // Unit 2g writes group g's stream, unit 2g + 1 reads it.
            run.timedOnDefault {
                launchUnits(run.units(), 2 * groups) { u ->
                    val group = ends[u / 2]!!
                    if (u % 2 == 0) {
                        write(group, messages, size, blocking)
                    } else {
                        read[u / 2] = readAll(group, size, blocking)
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
        ends: Ends,
        messages: Long,
        size: Int,
        blocking: CoroutineDispatcher,
    ) {
        ends.writer().use { writer ->
            val block = ByteBuffer.allocateDirect(size)
            while (block.hasRemaining()) {
                block.put('x'.code.toByte())
            }
            for (m in 0 until messages) {
                block.rewind()
                while (block.hasRemaining()) { // a short write goes on where it stopped
                    withContext(blocking) { writer.write(block) }
                }
            }
            ends.finish().run()
        }
    }

    private suspend fun readAll(
        ends: Ends,
        size: Int,
        blocking: CoroutineDispatcher,
    ): Long {
        ends.reader().use { reader ->
            val buffer = ByteBuffer.allocateDirect(size)
            var total = 0L
            while (true) {
                val n = withContext(blocking) { reader.read(buffer) }
                if (n < 0) {
                    return total
                }
                total += n
                buffer.clear()
            }
        }
    }
}
