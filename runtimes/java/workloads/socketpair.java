// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM socket pair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
package concbench.workloads;

import concbench.kit.Mechanism;
import concbench.kit.Workload;
import concbench.lib.Streams;
import concbench.lib.Threads;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.Map;

/**
 * The JDK has no socketpair: each pair is a Unix-domain SocketChannel connected to one accepted
 * from a server channel bound on a path in the scratch directory, then closed and the path removed.
 * The same kind of socket, connected the same way, as socketpair(2) makes; made before the clocks
 * (lib.Streams), so that the binding, a file system operation socketpair does not do, is not
 * measured.
 */
final class Socketpair implements Workload {
  @Override
  public Map<String, Mechanism> mechanisms() {
    return Threads.mechanisms(
        (run, threads) ->
            Streams.run(
                run,
                threads,
                g -> {
                  UnixDomainSocketAddress address =
                      UnixDomainSocketAddress.of(run.scratch().resolve("socketpair-" + g));
                  try (ServerSocketChannel server =
                      ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                    server.bind(address);
                    try {
                      SocketChannel writer = SocketChannel.open(address);
                      return new Streams.Ends(server.accept(), writer, writer::shutdownOutput);
                    } finally {
                      Files.delete(address.getPath());
                    }
                  }
                }));
  }
}
