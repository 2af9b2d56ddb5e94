// Mutex, I/O-bound (workloads/mutex-io.toml): per group one mutex, one file
// in the scratch directory and the file's end, shared by its units; each of
// `workers` units, `iterations` times, locks, reads the group's end, writes
// `size` bytes at that offset (a pwrite), stores the end plus `size` and
// unlocks. The files are made before the clocks; their sizes are summed,
// and the files removed, after the clocks stop.
package concbench.workloads

import concbench.coroutines.Waits
import concbench.coroutines.launchUnits
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.withContext
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardOpenOption

/**
 * A positioned FileChannel.write is one pwrite, from a direct buffer made before the clocks (as
 * the Java kit's); it is a blocking call, made in withContext(Dispatchers.IO) while the coroutine
 * holds the group's Mutex (docs/extending.md, "File I/O on an event loop"), and a coroutine that
 * finds the Mutex held suspends. contended: locks whose tryLock failed (Waits).
 */
class MutexIo : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::mutexIo))

    private class Group(
        path: Path,
        size: Int,
    ) {
        val mutex = Mutex()
        val file: FileChannel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
        val block: ByteBuffer = ByteBuffer.allocateDirect(size) // `size` bytes of 'x'; its position guarded by mutex
        var end = 0L // where the next write goes; guarded by mutex

        init {
            while (block.hasRemaining()) {
                block.put('x'.code.toByte())
            }
        }

        suspend fun writeLocked(contended: Waits) {
            contended.lock(mutex)
            try {
                val at = end
                val data = block.rewind()
                while (data.hasRemaining()) { // a short write goes on where it stopped
                    withContext(Dispatchers.IO) { file.write(data, at + data.position()) }
                }
                end = at + data.limit()
            } finally {
                mutex.unlock()
            }
        }
    }

    private fun mutexIo(run: Run) {
        val groups = run.count("groups")
        val workers = run.count("workers")
        val iterations = run.integer("iterations")
        val gs = ArrayList<Group>()
        try {
            for (g in 0 until groups) {
                gs.add(Group(run.scratch().resolve("mutex-io-$g"), run.count("size")))
            }
            val contended = Waits.forUnits(groups * workers)
            run.timedOnDefault {
                launchUnits(run.units(), groups * workers) { w ->
                    repeat(iterations.toInt()) { gs[w / workers].writeLocked(contended[w]) }
                }
            }
            run.result("bytes", gs.sumOf { it.file.size() })
            run.evidence("contended", Waits.total(contended))
        } finally {
            gs.forEachIndexed { g, group ->
                group.file.close()
                Files.delete(run.scratch().resolve("mutex-io-$g"))
            }
        }
    }
}
