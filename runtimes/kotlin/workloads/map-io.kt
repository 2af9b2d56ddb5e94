// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
package concbench.workloads

import concbench.coroutines.WorkerModes
import concbench.kit.Run
import concbench.kit.Workload
import concbench.lib.Lcg
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import java.nio.file.Files
import java.nio.file.Path

/**
 * The read is a blocking call, made in withContext(Dispatchers.IO): kotlinx.coroutines' pool for
 * blocking calls, which shares its threads with Dispatchers.Default (docs/extending.md, "File I/O
 * on an event loop").
 */
class MapIo : Workload {
    override fun mechanisms() = WorkerModes.mechanisms(::mapIo)

    /** The file's content with [n] characters appended: its length. */
    private suspend fun readAndAppend(
        path: Path,
        n: Long,
    ): Long {
        val content = withContext(Dispatchers.IO) { Files.readAllBytes(path) }
        val appended = content.copyOf(content.size + n.toInt())
        appended.fill('x'.code.toByte(), content.size)
        return appended.size.toLong()
    }

    private fun mapIo(run: Run) {
        val path = run.scratch().resolve("map-io")
        Files.write(path, ByteArray(run.count("file_size")) { 'x'.code.toByte() })
        try {
            val inputs = Lcg.draws(run.count("cases"), 0, 10)
            var length = 0L
            WorkerModes.run(run, { n -> readAndAppend(path, n) }) { apply -> length += apply(inputs).sum() }
            run.result("length", length)
        } finally {
            Files.delete(path)
        }
    }
}
