// Mutex, I/O-bound (workloads/mutex-io.toml): per group one lock, one file
// in the scratch directory and the file's end, shared by its units; each of
// `workers` units, `iterations` times, locks, reads the group's end, writes
// `size` bytes at that offset (a pwrite), stores the end plus `size` and
// unlocks. The files are made before the clocks; their sizes are summed,
// and the files removed, after the clocks stop.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Workload;
import concbench.lib.Threads;
import concbench.lib.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A positioned FileChannel.write is one pwrite, with no buffering in user space, from a direct
 * buffer made before the clocks (a heap buffer would be copied through a temporary direct one on
 * every write); the group's lock guards its buffer's position as it guards the end. A regular file
 * is not pollable: a platform thread blocks in the write; a virtual thread pins its carrier in it,
 * and the scheduler adds a carrier meanwhile. contended: acquisitions whose tryLock failed
 * (lib.Waits).
 */
final class MutexIo implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(MutexIo::mutexIo);
  }

  private static final class Group {
    final ReentrantLock lock = new ReentrantLock();
    final FileChannel file;
    final ByteBuffer block; // `size` bytes of 'x'; its position guarded by lock
    long end; // where the next write goes; guarded by lock

    Group(Path path, int size) throws IOException {
      file = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      block = ByteBuffer.allocateDirect(size);
      while (block.hasRemaining()) {
        block.put((byte) 'x');
      }
    }
  }

  private static void mutexIo(Run run, ThreadFactory threads) throws Exception {
    int groups = run.count("groups"), workers = run.count("workers");
    long iterations = run.integer("iterations");
    int size = run.count("size");
    Group[] gs = new Group[groups];
    try {
      for (int g = 0; g < groups; g++) {
        gs[g] = new Group(run.scratch().resolve("mutex-io-" + g), size);
      }
      Waits[] contended = Waits.forUnits(groups * workers);
      run.timed(
          () ->
              Threads.startAll(
                  run.units(),
                  threads,
                  groups * workers,
                  w -> {
                    for (long i = 0; i < iterations; i++) {
                      writeLocked(gs[w / workers], contended[w]);
                    }
                  }));
      long written = 0;
      for (Group group : gs) {
        written += group.file.size();
      }
      run.result("bytes", written);
      run.evidence("contended", Waits.total(contended));
    } finally {
      removeFiles(run.scratch(), gs);
    }
  }

  private static void writeLocked(Group group, Waits contended) throws IOException {
    contended.lock(group.lock);
    try {
      long at = group.end;
      ByteBuffer data = group.block.rewind();
      while (data.hasRemaining()) { // a short write goes on where it stopped
        group.file.write(data, at + data.position());
      }
      group.end = at + data.limit();
    } finally {
      group.lock.unlock();
    }
  }

  private static void removeFiles(Path scratch, Group[] gs) throws IOException {
    for (int g = 0; g < gs.length && gs[g] != null; g++) {
      gs[g].file.close();
      Files.delete(scratch.resolve("mutex-io-" + g));
    }
  }
}
