require "io/wait"
require_relative "../lib/stock_queue"

module Workloads
  # Per group one queue, holding at most `capacity` items (0: no bound):
  # `producers` units push 1..items each; once all of them are done, the
  # caller pushes one stop token per consumer; `consumers` units pop until a
  # stop token, counting and summing what they popped.
  #
  # `blocked` counts the pushes that found the queue full and the pops that
  # found it empty, each unit in a local of its own (the caller's stop tokens
  # in the caller's), summed after the run. Threads and tasks look just
  # before the blocking call (stock_queue.rb).
  module Queue
    STOP = :stop

    def self.thread(groups:, producers:, consumers:, items:, capacity:)
      units = Kit.units
      blocked = 0
      all = Array.new(groups) do
        queue = StockQueue.new(capacity)
        [queue, Array.new(producers) { Thread.new { units.unit { StockQueue.push_all(queue, 1..items, capacity) } } },
         Array.new(consumers) { Thread.new { units.unit { drain(queue) } } }]
      end
      all.each { |queue, ps, _| blocked += ps.sum(&:value) + StockQueue.push_all(queue, [STOP] * consumers, capacity) }
      totals(all.flat_map { |_, _, cs| cs.map(&:value) }, blocked)
    end

    # The stock queues, which suspend a task under async's scheduler (its
    # block and unblock hooks) when a push finds them full or a pop empty.
    def self.fiber(groups:, producers:, consumers:, items:, capacity:)
      fibers(groups, producers, consumers, items, capacity) { StockQueue.new(capacity) }
    end

    # The direct path: the ring's own queue (scheduler.rb), whose waiters are
    # fibers parked in C, as UringMachine's pure API's queue is; pushes and
    # pops counted as the stock queue's (stock_queue.rb: the same interface).
    def self.uring_direct(groups:, producers:, consumers:, items:, capacity:)
      fibers(groups, producers, consumers, items, capacity) { Concbench::Core::Queue.new(capacity) }
    end

    # A task per unit under Kit.sync, each group's queue made by the block.
    def self.fibers(groups, producers, consumers, items, capacity)
      units = Kit.units
      blocked = 0
      Kit.sync do |task|
        all = Array.new(groups) do
          queue = yield
          [queue, Array.new(producers) { task.async { units.unit { StockQueue.push_all(queue, 1..items, capacity) } } },
           Array.new(consumers) { task.async { units.unit { drain(queue) } } }]
        end
        all.each { |queue, ps, _| blocked += ps.sum(&:wait) + StockQueue.push_all(queue, [STOP] * consumers, capacity) }
        totals(all.flat_map { |_, _, cs| cs.map(&:wait) }, blocked)
      end
    end

    # UringMachine's pure API (lib/um.rb), as its benchmark script uses it: a
    # UM#spin fiber per unit, each group's queue a UM::Queue (UM#push,
    # UM#shift: first in, first out), whose waiters wait on the ring. The
    # units call the machine themselves: through a wrapper with the stock
    # queue's interface (Concbench::UmQueue) a push and a shift took 35-60%
    # longer (320,000 of each, three rounds: 0.116-0.145 s against
    # 0.082-0.093 s). A UM::Queue has no bound:
    # bounded capacities are n/a (runtime.toml's limit), and no push waits.
    def self.um(groups:, producers:, consumers:, items:, capacity:)
      raise Kit::Refusal, "a UM::Queue has no bound: capacity must be 0" unless capacity.zero?
      units = Kit.units
      machine = Concbench::Um.machine
      all = Array.new(groups) do
        queue = UM::Queue.new
        [queue, Array.new(producers) { machine.spin { units.unit { 1.upto(items) { |v| machine.push(queue, v) } } } },
         Array.new(consumers) { machine.spin { units.unit { drain_um(machine, queue) } } }]
      end
      all.each { |queue, ps, _| Concbench::Um.join(machine, ps); consumers.times { machine.push(queue, STOP) } }
      totals(all.flat_map { |_, _, cs| Concbench::Um.join(machine, cs) }, 0)
    end

    # A um consumer: as drain, looking at the UM::Queue's count just before
    # UM#shift, as the stock queue's popper looks (stock_queue.rb).
    def self.drain_um(machine, queue)
      waits = 0
      count, sum = consume do
        empty = queue.count.zero?
        value = machine.shift(queue)
        waits += 1 if empty
        value
      end
      [count, sum, waits]
    end

    # The queue is a pipe of 8-byte records, one write(2) each: writes under
    # PIPE_BUF are atomic. Values are >= 1: a 0 record is the stop token. A
    # pipe holds 64 KiB (8,192 records) whatever `capacity` says: bounded
    # capacities are n/a (runtime.toml's limit), and with 0 a producer that
    # finds the pipe full waits too (runtime.toml's note). Ruby's pipes are
    # non-blocking (IO#nonblock? is true since 3.0; blocking calls wait in
    # poll): a unit first tries read_nonblock (write_nonblock), and only if
    # that finds the pipe empty (full) counts `blocked` and waits (read_record;
    # write). Every child reports [count, sum, blocked] through a pipe.
    def self.process(groups:, producers:, consumers:, items:, capacity:)
      raise Kit::Refusal, "a pipe's capacity is the kernel's: capacity must be 0" unless capacity.zero?
      results, report = IO.pipe
      all = Array.new(groups) do
        reader, writer = IO.pipe
        ps = Array.new(producers) do
          Kit.fork do
            blocked = 0
            1.upto(items) { |v| blocked += push_record(writer, v) }
            report.write([0, 0, blocked].pack("Q<3"))
          end
        end
        cs = Array.new(consumers) do
          Kit.fork do
            # One record a read: a buffered read would take other consumers' records and stop tokens.
            blocked = 0
            count, sum = consume do
              record = reader.read_nonblock(8, exception: false)
              if record == :wait_readable
                blocked += 1
                record = read_record(reader)
              end
              record.unpack1("Q<").nonzero? || STOP
            end
            report.write([count, sum, blocked].pack("Q<3"))
          end
        end
        reader.close
        [writer, ps, cs]
      end
      report.close
      blocked = 0
      all.each do |writer, ps, _|
        Kit.wait(ps)
        consumers.times { blocked += push_record(writer, 0) }
        writer.close
      end
      records = results.read.unpack("Q<*").each_slice(3).to_a # EOF once every child has exited
      results.close
      Kit.wait(all.flat_map { |_, _, cs| cs })
      totals(records, blocked)
    end

    # The queue is a ractor passing on what it receives; the main ractor
    # closes it at the end. A ractor's inbox has no bound: bounded capacities
    # are n/a (runtime.toml's limit). `blocked` is null: Ractor.receive and
    # Ractor#take have no non-blocking form in Ruby 3.1 and an inbox has no
    # size, so a take that waits cannot be told from one that does not. Each
    # ractor stamps its own start and end and returns them with its value.
    def self.ractor(groups:, producers:, consumers:, items:, capacity:)
      raise Kit::Refusal, "a ractor's inbox has no bound: capacity must be 0" unless capacity.zero?
      all = Array.new(groups) do
        pipe = Ractor.new do
          start = Kit.stamp
          loop { Ractor.yield Ractor.receive } # ends when the receive raises (Ractor::ClosedError is a StopIteration)
          [start, Kit.stamp]
        end
        [pipe, Array.new(producers) { Ractor.new(pipe, items) { |q, n| [Kit.stamp, 1.upto(n) { |v| q.send(v) }, Kit.stamp] } },
         Array.new(consumers) { Ractor.new(pipe) { |q| [Kit.stamp, Queue.consume { q.take }, Kit.stamp] } }]
      end
      spans = []
      all.each do |pipe, ps, _|
        ps.each { |p| start, _, stop = p.take; spans << [start, stop] }
        consumers.times { pipe.send(STOP) }
      end
      counts = all.flat_map { |_, _, cs| cs.map { |c| start, count, stop = c.take; spans << [start, stop]; count } }
      all.each { |pipe, _, _| pipe.close_incoming; spans << pipe.take }
      Kit.units.spans(spans)
      Kit.evidence(blocked: nil)
      { count: counts.sum(&:first), sum: counts.sum(&:last) }
    end

    # A consumer: [count, sum, pops that found the queue empty].
    def self.drain(queue)
      waits = [0]
      count, sum = consume(&StockQueue.popper(queue, waits))
      [count, sum, waits[0]]
    end

    # Pops with the block until the stop token: [count, sum]; the mechanisms
    # differ only in how they pop.
    def self.consume
      count = sum = 0
      until (v = yield) == STOP
        count += 1
        sum += v
      end
      [count, sum]
    end

    # Waits for a record and reads it. Another consumer may take the record
    # a wake-up announced: wait again. (Ruby 3.1's sysread waited on a
    # non-blocking pipe; 3.4's raises EAGAIN.)
    def self.read_record(reader)
      while (record = reader.read_nonblock(8, exception: false)) == :wait_readable
        reader.wait_readable
      end
      record
    end

    # Writes one record: 1 if the pipe was full and the write had to wait, else 0.
    def self.push_record(writer, value)
      record = [value].pack("Q<")
      return 0 unless writer.write_nonblock(record, exception: false) == :wait_writable
      writer.write(record) # waits in poll (syswrite would raise EAGAIN); 8 bytes to a pipe: all or nothing
      1
    end

    def self.totals(counts, blocked)
      Kit.evidence(blocked: blocked + counts.sum { |c| c[2] })
      { count: counts.sum(&:first), sum: counts.sum { |c| c[1] } }
    end
  end
end
