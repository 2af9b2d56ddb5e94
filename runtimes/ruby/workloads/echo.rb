require "io/nonblock"
require "socket"
require_relative "../lib/concurrent_procs"

module Workloads
  # A server: before the clock it listens on a loopback TCP port (the kernel
  # picks it) or on <scratch>/echo.sock, and says where (Kit.listening);
  # concbench's load generator connects there. In the timed region it
  # accepts exactly `connections` connections, one at a time, and a unit
  # per connection writes back whatever it reads until the client closes,
  # then closes it; the run ends when every unit has. The listener is closed
  # after the clock. rate and duration_ms are the generator's.
  #
  # `held` counts the connections open at once at the peak: one more at
  # accept, one fewer at close (Kit.counter).
  module Echo
    def self.thread(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        serve = ->(client) { echo(client, size) }
        per_connection(server, connections, held, :value, serve) { |work| Thread.new(&work) }
      end
    end

    # The fiber rows' accept, reads and writes are stock IO's, which wait
    # through the scheduler.
    def self.fiber(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        Kit.sync do |task|
          serve = ->(client) { echo(client, size) }
          per_connection(server, connections, held, :wait, serve) { |work| task.async(&work) }
        end
      end
    end

    # Concurrently, as its guide's server: the caller accepts when the event
    # loop finds the listener readable (accept_nonblock, else
    # IO#await_readable and again), and each connection is served by a
    # concurrent proc's evaluation, detached (Kernel#concurrently's way),
    # reading with IO#await_read and writing with #await_written.
    def self.concurrently(connections:, size:, transport:, **, &timed)
      ConcurrentProcs.load
      served(connections, transport, timed) do |server, held|
        serve = ->(client) { await_echo(client, size) }
        per_connection(server, connections, held, :await_result, serve, accept: method(:await_accept)) do |work|
          ConcurrentProcs.new(&work).call_detached
        end
      end
    end

    # The direct path: the caller accepts through Ruby's IO (a poll on the
    # ring), and each unit calls the ring's read and write (scheduler.rb) on
    # its connection's descriptor, made blocking so that the kernel waits
    # inside each operation, as UringMachine's own API is used; no Ruby IO
    # in between.
    def self.uring_direct(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        Kit.sync do |task|
          ring = Fiber.scheduler
          serve = ->(client) { echo_direct(ring, client, size) }
          per_connection(server, connections, held, :wait, serve) { |work| task.async(&work) }
        end
      end
    end

    # UringMachine's pure API, as its echo server example serves (lib/um.rb):
    # the listener is Ruby's, the caller takes each connection's descriptor
    # with UM#accept and spins a fiber per connection on the one machine,
    # which UM#recv's and UM#send's it back; no Ruby IO in between.
    def self.um(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        machine = Concbench::Um.machine
        serve = ->(fd) { echo_um(machine, fd, size) }
        accept = ->(listener) { accept_um(machine, listener) }
        per_connection(server, connections, held, :wait, serve, accept:) do |work|
          Concbench::Um::Spun.new(machine, machine.spin(&work))
        end
      end
    end

    # Ruby 3.1 cannot copy an IO into a ractor: each ractor wraps its
    # connection's descriptor (Socket.for_fd) and closes it; the caller's IO
    # objects must not. Each ractor stamps its own start and end (after the
    # close) and returns them with its bytes; a connection is held from the
    # caller's stamp at its accept to that end.
    def self.ractor(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        accepted = []
        ractors = Array.new(connections) do
          client = accept(server)
          accepted << Kit.stamp
          client.autoclose = false
          Ractor.new(client.fileno, size) { |fd, s| [Kit.stamp, Echo.echo(Socket.for_fd(fd), s), Kit.stamp] }
        end
        ends = ractors.map(&:take)
        Kit.units.spans(ends.map { |start, _, stop| [start, stop] })
        held.spans(accepted.zip(ends.map(&:last)))
        ends.sum { |_, bytes, _| bytes }
      end
    end

    # A forked child per connection, as the classic Unix server serves each:
    # the caller accepts, forks and closes its copy. A child reports its
    # connection, bytes and the stamp of its close on a pipe; a connection is
    # held from the caller's stamp at its accept to that close.
    def self.process(connections:, size:, transport:, **, &timed)
      served(connections, transport, timed) do |server, held|
        results, report = IO.pipe
        accepted = []
        pids = Array.new(connections) do |i|
          client = accept(server)
          accepted << Kit.stamp
          pid = Kit.fork do
            [server, results].each(&:close)
            report.write([i, echo(client, size), Kit.stamp].pack("Q<3"))
          end
          client.close
          pid
        end
        report.close
        closes = results.read.unpack("Q<*").each_slice(3).sort # EOF once every child has exited
        results.close
        Kit.wait(pids)
        held.spans(accepted.zip(closes.map(&:last)))
        closes.sum { |_, bytes, _| bytes }
      end
    end

    # Opens the run's listener and says where (untimed), hands the kit the
    # timed work (the block: given the listener and the count of connections
    # held, it serves `connections` and returns the bytes written back), then
    # closes the listener.
    def self.served(connections, transport, timed)
      server, address = listen(transport, connections)
      held = Kit.counter
      Kit.listening(address)
      bytes = timed.call(proc { yield server, held })
      accepted, most = held.count
      Kit.evidence(held: most)
      { connections: accepted, bytes: bytes }
    ensure
      path = server.path if server.is_a?(UNIXServer)
      server&.close
      File.unlink(path) if path
    end

    # The listener and its address for the load generator, with a backlog of
    # `connections` (the kernel caps it at somaxconn; the generator retries).
    def self.listen(transport, connections)
      if transport == "unix"
        path = File.join(Kit.scratch, "echo.sock")
        File.unlink(path) if File.exist?(path) # a leftover of the previous run
        return [UNIXServer.new(path).tap { |server| server.listen(connections) }, "unix:#{path}"]
      end
      server = tcp_server(connections)
      [server, "tcp:127.0.0.1:#{server.local_address.ip_port}"]
    end

    # JRuby's TCPServer listens with a backlog of 50 whatever listen asks (its
    # listen does nothing), and 1,000 connections at once overflowed it: one
    # was reset. Its ServerSocket takes the backlog as it binds.
    def self.tcp_server(connections)
      return TCPServer.new("127.0.0.1", 0).tap { |server| server.listen(connections) } unless RUBY_ENGINE == "jruby"

      ServerSocket.new(:INET, :STREAM).tap { |server| server.bind(Addrinfo.tcp("127.0.0.1", 0), connections) }
    end

    # Accepts the connections one at a time (`accept`: what takes the next,
    # given the listener) and serves each (`serve`, given the connection) on a unit that
    # the block starts with its work; `await` ends a unit and returns the
    # bytes it wrote back.
    def self.per_connection(server, connections, held, await, serve, accept: method(:accept))
      live = Kit.units
      Array.new(connections) do
        client = accept.call(server)
        held.start
        yield(proc { live.unit { serve.call(client).tap { held.finish } } })
      end.sum(&await)
    end

    # The next connection; on TCP with Nagle's algorithm off, as every echo
    # server sets it, so that a reply is sent at once.
    def self.accept(server)
      client = server.accept
      client, = client if client.is_a?(Array) # a ServerSocket's: the socket and its address
      client.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) unless server.is_a?(UNIXServer)
      client
    end

    # The next connection, taken without blocking the thread that the other
    # evaluations run on (Concurrently's).
    def self.await_accept(server)
      client = server.accept_nonblock
      client.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) unless server.is_a?(UNIXServer)
      client
    rescue IO::WaitReadable
      server.await_readable
      retry
    end

    # The next connection's descriptor, taken through the machine (UM#accept),
    # with Nagle's algorithm off on TCP (UM#setsockopt).
    def self.accept_um(machine, server)
      fd = machine.accept(server.fileno)
      machine.setsockopt(fd, UM::IPPROTO_TCP, UM::TCP_NODELAY, 1) unless server.is_a?(UNIXServer)
      fd
    end

    # A read takes what is there, up to a request or 4 KiB, whichever is more.
    def self.read_size(size) = [size, 4096].max

    # Writes back all it reads, a read of what is there at a time, until the
    # client closes; closes the connection and returns the bytes written.
    def self.echo(client, size)
      buffer = String.new # readpartial sizes it (capacity: fails inside a Ruby 3.1 ractor)
      chunk = read_size(size)
      bytes = 0
      loop { bytes += client.write(client.readpartial(chunk, buffer)) }
    rescue EOFError
      bytes
    ensure
      client.close
    end

    # echo on the machine's UM#recv and UM#send (MSG_WAITALL: the send
    # returns once all it was given is written, as the um row's socketpair
    # sends), closing with UM#close.
    def self.echo_um(machine, fd, size)
      chunk = read_size(size)
      buffer = String.new(capacity: chunk)
      bytes = 0
      while (n = machine.recv(fd, buffer, chunk, 0)).positive?
        bytes += machine.send(fd, buffer, n, UM::MSG_WAITALL)
      end
      bytes
    ensure
      machine.close(fd)
    end

    # echo on Concurrently's IO#await_read and #await_written.
    def self.await_echo(client, size)
      buffer = String.new
      chunk = read_size(size)
      bytes = 0
      loop { bytes += ConcurrentProcs.write(client, client.await_read(chunk, buffer)) }
    rescue EOFError
      bytes
    ensure
      client.close
    end

    # echo on the ring's read and write.
    def self.echo_direct(ring, client, size)
      client.nonblock = false
      buffer, fd = IO::Buffer.new(read_size(size)), client.fileno
      bytes = 0
      while (n = ring.read(fd, buffer, buffer.size)).positive?
        bytes += ring.write(fd, buffer, n)
      end
      bytes
    ensure
      client.close
    end
  end
end
