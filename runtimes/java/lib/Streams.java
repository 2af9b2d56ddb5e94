package concbench.lib;

import concbench.kit.Run;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.ThreadFactory;

/**
 * pipe and socketpair on the thread and virtual rows: per group, a pair of blocking channels, a
 * writer unit writing {@code messages} blocks of {@code size} bytes and then ending its stream, and
 * a reader unit reading {@code size} bytes a call until end of stream and counting them. A platform
 * thread blocks in the read or write; a virtual thread's channel is made non-blocking underneath,
 * and the thread parks on the JDK's poller until it is ready, freeing its carrier. Direct buffers,
 * as channel I/O wants: a heap buffer is copied through a temporary direct one.
 */
public final class Streams {
  /** What ends a writer's stream before its channel is closed (a socket's shutdown). */
  @FunctionalInterface
  public interface Finish {
    void run() throws IOException;
  }

  /** A group's two ends; closing them is idempotent, so the run closes them all again. */
  public record Ends(ReadableByteChannel reader, WritableByteChannel writer, Finish finish) {
    void close() throws IOException {
      try (reader;
          writer) {
        // both closed, the writer's failure suppressed in the reader's
      }
    }
  }

  /** Makes group {@code g}'s ends. */
  @FunctionalInterface
  public interface Opener {
    Ends open(int g) throws IOException;
  }

  private Streams() {}

  /** The ends are made before the clocks, and closed after (for a unit that failed). */
  public static void run(Run run, ThreadFactory threads, Opener opener) throws Exception {
    int groups = run.count("groups"), size = run.count("size");
    long messages = run.integer("messages");
    Ends[] ends = new Ends[groups];
    try {
      for (int g = 0; g < groups; g++) {
        ends[g] = opener.open(g);
      }
      long[] read = new long[groups];
      // Unit 2g writes group g's stream, unit 2g + 1 reads it.
      run.timed(
          () ->
              Threads.startAll(
                  run.units(),
                  threads,
                  2 * groups,
                  u -> {
                    if (u % 2 == 0) {
                      write(ends[u / 2], messages, size);
                    } else {
                      read[u / 2] = readAll(ends[u / 2].reader(), size);
                    }
                  }));
      long bytes = 0;
      for (long n : read) {
        bytes += n;
      }
      run.result("bytes", bytes);
    } finally {
      for (Ends group : ends) {
        if (group != null) {
          group.close();
        }
      }
    }
  }

  private static void write(Ends ends, long messages, int size) throws IOException {
    try (WritableByteChannel writer = ends.writer()) {
      ByteBuffer block = ByteBuffer.allocateDirect(size);
      while (block.hasRemaining()) {
        block.put((byte) 'x');
      }
      for (long m = 0; m < messages; m++) {
        block.rewind();
        while (block.hasRemaining()) { // a short write goes on where it stopped
          writer.write(block);
        }
      }
      ends.finish().run();
    }
  }

  private static long readAll(ReadableByteChannel reader, int size) throws IOException {
    try (reader) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(size);
      long total = 0;
      for (int n; (n = reader.read(buffer)) >= 0; buffer.clear()) {
        total += n;
      }
      return total;
    }
  }
}
