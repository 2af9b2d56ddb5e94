package concbench.coroutines

import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.ReceiveChannel
import kotlinx.coroutines.channels.SendChannel
import kotlinx.coroutines.sync.Mutex

/**
 * One unit's count of the waits its evidence declares, as the Java kit's lib.Waits counts them:
 * sends that found a channel full and receives that found it empty (blocked), or locks that found
 * the mutex held (contended). The try without suspending comes first, and only if it fails the
 * call that suspends. A unit owns its instance: the counts are summed after the units are awaited.
 */
class Waits {
    var count = 0L
        private set

    /** Sends [value], counting a wait if the channel was full. */
    suspend fun <T> send(
        channel: SendChannel<T>,
        value: T,
    ) {
        if (channel.trySend(value).isFailure) {
            count++
            channel.send(value)
        }
    }

    /** Receives a value, counting a wait if the channel was empty. */
    suspend fun <T> receive(channel: ReceiveChannel<T>): T {
        val tried = channel.tryReceive()
        if (tried.isSuccess) {
            return tried.getOrThrow()
        }
        count++
        return channel.receive()
    }

    /** Receives a value, or null once the channel is closed and empty; counting a wait as [receive]. */
    suspend fun <T : Any> receiveUntilClosed(channel: ReceiveChannel<T>): T? {
        val tried = channel.tryReceive()
        if (tried.isSuccess || tried.isClosed) {
            return tried.getOrNull()
        }
        count++
        return channel.receiveCatching().getOrNull()
    }

    /** Locks [mutex], counting a wait if it was held. */
    suspend fun lock(mutex: Mutex) {
        if (!mutex.tryLock()) {
            count++
            mutex.lock()
        }
    }

    companion object {
        /** One fresh count for each of [n] units. */
        fun forUnits(n: Int) = List(n) { Waits() }

        /** The sum of the units' counts. */
        fun total(waits: List<Waits>) = waits.sumOf { it.count }
    }
}

/** The channel of the mailbox and queue workloads: at most [capacity] items, 0 meaning no bound. */
fun <T> bounded(capacity: Int) = Channel<T>(if (capacity == 0) Channel.UNLIMITED else capacity)
