// Non-blocking channel I/O for coroutines, through Ktor's network layer: a
// channel in non-blocking mode is read or written at once, and when it has
// nothing to give or take its coroutine suspends in SelectorManager.select
// until Ktor's selector (one thread, waiting in epoll) finds it ready, freeing
// its thread meanwhile. kotlinx.coroutines has no selector of its own.
package concbench.coroutines

import io.ktor.network.selector.InterestSuspensionsMap
import io.ktor.network.selector.SelectInterest
import io.ktor.network.selector.Selectable
import io.ktor.network.selector.SelectorManager
import java.nio.ByteBuffer
import java.nio.channels.ClosedChannelException
import java.nio.channels.ReadableByteChannel
import java.nio.channels.SelectableChannel
import java.nio.channels.WritableByteChannel
import kotlin.coroutines.resumeWithException

/**
 * A channel, made non-blocking, that Ktor's selector watches for one [interest]: a reader's
 * channel for READ, a writer's for WRITE. (Ktor's own SelectableBase, which lets the interest
 * change, is internal to it; Selectable is its public interface.)
 */
class Watched(
    override val channel: SelectableChannel,
    interest: SelectInterest,
) : Selectable {
    override val suspensions = InterestSuspensionsMap()
    override val interestedOps = interest.flag
    override val isClosed get() = !channel.isOpen

    init {
        channel.configureBlocking(false)
    }

    /** Never asked for: the interest is fixed when the channel is watched. */
    override fun interestOp(
        interest: SelectInterest,
        state: Boolean,
    ) = throw UnsupportedOperationException("a Watched channel's interest is fixed")

    /** Closes the channel and fails a coroutine still waiting on it. */
    override fun close() {
        channel.close()
        suspensions.invokeForEachPresent { resumeWithException(ClosedChannelException()) }
    }

    override fun dispose() = close()
}

/** Reads into [buffer] as soon as [watched] has bytes or its end: the count, or -1 at the end. */
suspend fun SelectorManager.read(
    watched: Watched,
    buffer: ByteBuffer,
): Int {
    val channel = watched.channel as ReadableByteChannel
    while (true) {
        val n = channel.read(buffer)
        if (n != 0) {
            return n
        }
        select(watched, SelectInterest.READ)
    }
}

/** Writes all of [buffer], suspending whenever [watched] has no room. */
suspend fun SelectorManager.writeAll(
    watched: Watched,
    buffer: ByteBuffer,
) {
    val channel = watched.channel as WritableByteChannel
    while (true) {
        channel.write(buffer)
        if (!buffer.hasRemaining()) {
            return
        }
        select(watched, SelectInterest.WRITE)
    }
}
