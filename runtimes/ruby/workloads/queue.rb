module Workloads
  # Per group one queue: `producers` units push 1..items each; once all of them
  # are done, one stop token per consumer; `consumers` units pop until a stop
  # token, counting and summing what they popped.
  module Queue
    STOP = :stop

    def self.thread(groups:, producers:, consumers:, items:)
      all = Array.new(groups) do
        queue = ::Thread::Queue.new
        [queue, Array.new(producers) { Thread.new { produce(queue, items) } },
         Array.new(consumers) { Thread.new { consume { queue.pop } } }]
      end
      all.each { |queue, ps, _| ps.each(&:join); consumers.times { queue << STOP } }
      [totals(all.flat_map { |_, _, cs| cs.map(&:value) }), groups * (producers + consumers)]
    end

    def self.fiber(groups:, producers:, consumers:, items:)
      Sync do |task|
        all = Array.new(groups) do
          queue = ::Thread::Queue.new
          [queue, Array.new(producers) { task.async { produce(queue, items) } },
           Array.new(consumers) { task.async { consume { queue.pop } } }]
        end
        all.each { |queue, ps, _| ps.each(&:wait); consumers.times { queue << STOP } }
        [totals(all.flat_map { |_, _, cs| cs.map(&:wait) }), groups * (producers + consumers)]
      end
    end

    # The queue is a pipe of 8-byte records, one write(2) each (the pipe's IO is
    # sync): writes under PIPE_BUF are atomic. Values are >= 1: a 0 record is the stop token.
    def self.process(groups:, producers:, consumers:, items:)
      results, report = IO.pipe
      all = Array.new(groups) do
        reader, writer = IO.pipe
        ps = Array.new(producers) { Kit.fork { 1.upto(items) { |v| writer.write([v].pack("Q<")) } } }
        cs = Array.new(consumers) do
          Kit.fork do
            # sysread: a buffered read would take other consumers' records and stop tokens.
            report.write(consume { reader.sysread(8).unpack1("Q<").nonzero? || STOP }.pack("Q<Q<"))
          end
        end
        reader.close
        [writer, ps, cs]
      end
      report.close
      all.each do |writer, ps, _|
        Kit.wait(ps)
        consumers.times { writer.write([0].pack("Q<")) }
        writer.close
      end
      records = results.read.unpack("Q<*").each_slice(2).to_a # EOF once every child has exited
      results.close
      Kit.wait(all.flat_map { |_, _, cs| cs })
      [totals(records), groups * (producers + consumers)]
    end

    # The queue is a ractor passing on what it receives; the main ractor closes it at the end.
    def self.ractor(groups:, producers:, consumers:, items:)
      all = Array.new(groups) do
        pipe = Ractor.new { loop { Ractor.yield Ractor.receive } }
        [pipe, Array.new(producers) { Ractor.new(pipe, items) { |q, n| 1.upto(n) { |v| q.send(v) } } },
         Array.new(consumers) { Ractor.new(pipe) { |q| Queue.consume { q.take } } }]
      end
      all.each { |pipe, ps, _| ps.each(&:take); consumers.times { pipe.send(STOP) } }
      counts = all.flat_map { |_, _, cs| cs.map(&:take) }
      all.each { |pipe, _, _| pipe.close_incoming; pipe.take } # its receive raises, its loop ends
      [totals(counts), groups * (producers + consumers + 1)]
    end

    def self.produce(queue, items) = 1.upto(items) { |v| queue << v }

    # Pops with the block until the stop token; the mechanisms differ only in how they pop.
    def self.consume
      count = sum = 0
      until (v = yield) == STOP
        count += 1
        sum += v
      end
      [count, sum]
    end

    def self.totals(counts) = { count: counts.sum(&:first), sum: counts.sum(&:last) }
  end
end
