require "io/nonblock"
require_relative "concurrent_procs"

module Workloads
  # pipe and socketpair: per group, a writer unit writes `messages` blocks of
  # `size` bytes into one end of a pair and ends its stream; a reader unit reads
  # the other end until EOF. The two workloads differ only in how the pair is
  # made and how the writer ends, the arguments of Stream.new.
  class Stream
    # finish: the IO method that ends the writer's stream (a Symbol, so that it
    # can enter a ractor); pair: makes a group's [reader end, writer end];
    # sockets: whether they are sockets (the um row sends and receives).
    def initialize(finish, sockets: false, &pair)
      @finish, @sockets, @pair = finish, sockets, pair
    end

    def thread(groups:, messages:, size:)
      live = Kit.units
      units = Array.new(groups) do
        reader, writer = @pair.call
        [Thread.new { live.unit { Stream.write(writer, messages, size, @finish) } },
         Thread.new { live.unit { Stream.read(reader, size) } }]
      end
      { bytes: units.sum { |w, r| w.join; r.value } }
    end

    def fiber(groups:, messages:, size:)
      live = Kit.units
      Kit.sync do |task|
        units = Array.new(groups) do
          reader, writer = @pair.call
          [task.async { live.unit { Stream.write(writer, messages, size, @finish) } },
           task.async { live.unit { Stream.read(reader, size) } }]
        end
        { bytes: units.sum { |w, r| w.wait; r.wait } }
      end
    end

    # A concurrent proc's evaluations, detached, writing and reading with
    # Concurrently's IO#await_written and #await_read (write_nonblock and
    # read_nonblock, which await readiness on its event loop where they would
    # block), as its guide does.
    def concurrently(groups:, messages:, size:)
      live = Kit.units
      writer = ConcurrentProcs.new { |io| live.unit { Stream.await_write(io, messages, size, @finish) } }
      reader = ConcurrentProcs.new { |io| live.unit { Stream.await_read(io, size) } }
      units = Array.new(groups) do
        reader_end, writer_end = @pair.call
        [writer.call_detached(writer_end), reader.call_detached(reader_end)]
      end
      { bytes: units.sum { |w, r| w.await_result; r.await_result } }
    end

    # The direct path: the units call the ring's read and write (scheduler.rb)
    # on the descriptors, made blocking so that the kernel waits inside each
    # operation, as UringMachine's own API is used; no Ruby IO in between.
    def uring_direct(groups:, messages:, size:)
      live = Kit.units
      Kit.sync do |task|
        ring = Fiber.scheduler
        units = Array.new(groups) do
          reader, writer = @pair.call.each { |io| io.nonblock = false }
          [task.async { live.unit { Stream.write_direct(ring, writer, messages, size, @finish) } },
           task.async { live.unit { Stream.read_direct(ring, reader, size) } }]
        end
        { bytes: units.sum { |w, r| w.wait; r.wait } }
      end
    end

    # UringMachine's pure API (lib/um.rb), as its benchmark scripts use it: a
    # UM#spin fiber per unit on the descriptors of UM.pipe (UM#write, UM#read)
    # or UM.socketpair (UM#send with MSG_WAITALL, UM#recv), no Ruby IO.
    def um(groups:, messages:, size:)
      live = Kit.units
      machine = Concbench::Um.machine
      units = Array.new(groups) do
        reader, writer = @sockets ? UM.socketpair(UM::AF_UNIX, UM::SOCK_STREAM, 0) : UM.pipe
        [machine.spin { live.unit { Stream.write_um(machine, writer, messages, size, @sockets) } },
         machine.spin { live.unit { Stream.read_um(machine, reader, size, @sockets) } }]
      end
      { bytes: Concbench::Um.join(machine, units.flatten).each_slice(2).sum { |_, read| read } }
    end

    def process(groups:, messages:, size:)
      results, report = IO.pipe
      pids = Array.new(groups) do
        reader, writer = @pair.call
        pair = [Kit.fork { reader.close; Stream.write(writer, messages, size, @finish) },
                Kit.fork { writer.close; report.write([Stream.read(reader, size)].pack("Q<")) }]
        # Only the children may hold the ends: the reader's EOF needs every writer end closed.
        reader.close
        writer.close
        pair
      end.flatten
      report.close
      bytes = results.read.unpack("Q<*").sum # EOF once every child has exited
      results.close
      Kit.wait(pids)
      { bytes: bytes }
    end

    # Ruby 3.1 cannot copy an IO into a ractor: each ractor reopens its end by
    # descriptor number and closes it; the parent's IO objects must not. Each
    # ractor stamps its own start and end and returns them with its value.
    def ractor(groups:, messages:, size:)
      units = Array.new(groups) do
        reader_fd, writer_fd = @pair.call.map { |io| io.autoclose = false; io.fileno }
        [Ractor.new(writer_fd, messages, size, @finish) { |fd, n, s, f| [Kit.stamp, Stream.write(IO.for_fd(fd), n, s, f), Kit.stamp] },
         Ractor.new(reader_fd, size) { |fd, s| [Kit.stamp, Stream.read(IO.for_fd(fd), s), Kit.stamp] }]
      end
      spans = []
      bytes = units.sum do |w, r|
        (start, _, stop), (rstart, read, rstop) = w.take, r.take
        spans << [start, stop] << [rstart, rstop]
        read
      end
      Kit.units.spans(spans)
      { bytes: bytes }
    end

    def self.write(io, messages, size, finish)
      io.sync = true # one write(2) per block for every mechanism (IO.for_fd starts unsynced)
      block = "x" * size
      messages.times { io.write(block) }
      io.public_send(finish)
    ensure
      io.close
    end

    def self.write_direct(ring, io, messages, size, finish)
      block, fd = IO::Buffer.for("x" * size), io.fileno
      messages.times { ring.write(fd, block, size) }
      io.public_send(finish)
    ensure
      io.close
    end

    def self.read_direct(ring, io, size)
      buffer, fd = IO::Buffer.new(size), io.fileno
      bytes = 0
      while (n = ring.read(fd, buffer, size)).positive?
        bytes += n
      end
      bytes
    ensure
      io.close
    end

    def self.await_write(io, messages, size, finish)
      block = "x" * size
      messages.times { ConcurrentProcs.write(io, block) }
      io.public_send(finish)
    ensure
      io.close
    end

    def self.await_read(io, size)
      buffer = String.new
      bytes = 0
      loop { bytes += io.await_read(size, buffer).bytesize }
    rescue EOFError
      bytes
    ensure
      io.close
    end

    # A socket's stream ends with shutdown(SHUT_WR), as close_write ends it.
    def self.write_um(machine, fd, messages, size, sockets)
      block = "x" * size
      if sockets
        messages.times { machine.send(fd, block, size, UM::MSG_WAITALL) }
        machine.shutdown(fd, UM::SHUT_WR)
      else
        messages.times { machine.write(fd, block, size) }
      end
    ensure
      machine.close(fd)
    end

    def self.read_um(machine, fd, size, sockets)
      buffer = String.new(capacity: size)
      bytes = 0
      if sockets
        while (n = machine.recv(fd, buffer, size, 0)).positive?
          bytes += n
        end
      else
        while (n = machine.read(fd, buffer, size)).positive?
          bytes += n
        end
      end
      bytes
    ensure
      machine.close(fd)
    end

    def self.read(io, size)
      buffer = String.new # readpartial sizes it (capacity: fails inside a Ruby 3.1 ractor)
      bytes = 0
      loop { bytes += io.readpartial(size, buffer).bytesize }
    rescue EOFError
      bytes
    ensure
      io.close
    end
  end
end
