// Echo (workloads/echo.toml): a server under concbench's load generator.
// Before the clocks it listens on a loopback TCP port (or a Unix socket) and
// says where; timed, it accepts `connections` connections and, on each,
// writes back every byte it reads until the client closes, then closes it.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Run;
import concbench.kit.Units;
import concbench.kit.Workload;
import concbench.lib.Threads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread per connection, the server Loom means to be written: the caller accepts from a blocking
 * ServerSocketChannel (which, unlike ServerSocket, also binds a Unix socket) and submits each
 * connection to Executors.newThreadPerTaskExecutor (for virtual threads, what
 * newVirtualThreadPerTaskExecutor is), whose task echoes it with blocking reads and writes. A
 * platform thread blocks in the kernel; a virtual thread's channel is made non-blocking underneath,
 * and the thread parks on the JDK's poller until it is ready, freeing its carrier.
 */
final class Echo implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(Echo::serve);
  }

  private static void serve(Run run, ThreadFactory threads) throws Exception {
    int connections = run.count("connections"), size = run.count("size");
    boolean tcp = run.choice("transport").equals("tcp");
    Path socketFile = run.scratch().resolve("echo.sock");
    Files.deleteIfExists(socketFile); // an earlier run's, had it failed
    try (ServerSocketChannel server =
        ServerSocketChannel.open(tcp ? StandardProtocolFamily.INET : StandardProtocolFamily.UNIX)) {
      // The backlog is connections, which the kernel caps at somaxconn (the JDK's default is 50).
      server.bind(
          tcp ? new InetSocketAddress("127.0.0.1", 0) : UnixDomainSocketAddress.of(socketFile),
          connections);
      run.listening(address(server.getLocalAddress()));
      Units units = run.units();
      AtomicInteger open = new AtomicInteger(); // connections open now
      int[] held = new int[1]; // their most: open grows only as the caller accepts
      List<Future<Long>> echoed = new ArrayList<>(connections);
      run.timed(
          () -> {
            try (ExecutorService executor = Executors.newThreadPerTaskExecutor(threads)) {
              for (int c = 0; c < connections; c++) {
                SocketChannel connection = server.accept();
                held[0] = Math.max(held[0], open.incrementAndGet());
                echoed.add(
                    executor.submit(
                        () -> {
                          units.start();
                          try {
                            return echo(connection, tcp, size);
                          } finally {
                            open.decrementAndGet();
                            units.finish();
                          }
                        }));
              }
            } // closing the executor awaits its threads
          });
      long bytes = 0;
      for (Future<Long> connection : echoed) {
        bytes += connection.get();
      }
      run.result("connections", echoed.size());
      run.result("bytes", bytes);
      run.evidence("held", held[0]);
    } finally {
      Files.deleteIfExists(socketFile);
    }
  }

  /** The address as the harness reads it: "tcp:127.0.0.1:PORT" or "unix:PATH". */
  private static String address(SocketAddress bound) {
    return switch (bound) {
      case InetSocketAddress inet -> "tcp:" + inet.getHostString() + ":" + inet.getPort();
      case UnixDomainSocketAddress unix -> "unix:" + unix.getPath();
      default -> throw new IllegalStateException("bound to " + bound);
    };
  }

  /**
   * Writes back all it reads, a buffer of at least {@code size} bytes at a time, until the client
   * closes; then closes the connection. The bytes written back.
   */
  private static long echo(SocketChannel connection, boolean tcp, int size) throws IOException {
    try (connection) {
      if (tcp) {
        connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
      }
      ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(size, 4096));
      long bytes = 0;
      for (int n; (n = connection.read(buffer)) >= 0; buffer.clear()) {
        buffer.flip();
        while (buffer.hasRemaining()) { // a short write goes on where it stopped
          connection.write(buffer);
        }
        bytes += n;
      }
      return bytes;
    }
  }
}
