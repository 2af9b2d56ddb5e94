require_relative "../lib/actors"

module Workloads
  # `count` units, made at the start of a run, serve all its rounds. In each
  # of `rounds` rounds the caller makes a latch of `count`, asks every unit to
  # count it down once, and waits until it reaches zero. The result is the
  # rounds the caller woke for, the count-downs the units made, and their
  # checksum: unit k (0-based) adds (k + 1) * (r + 1) for its count-down in
  # round r (which it learns from the request) to a tally of its own, reduced
  # modulo MOD as it grows; the caller sums the tallies modulo MOD.
  module Latch
    MOD = 1_000_000_007

    # Each unit waits on an inbox of its own for the latch to count down;
    # closing the inboxes stops them.
    def self.thread(count:, rounds:) = queued(count, rounds, :value) { |work| Thread.new(&work) }

    def self.fiber(count:, rounds:)
      Kit.sync { |task| queued(count, rounds, :wait) { |work| task.async(&work) } }
    end

    # Celluloid has no latch: each round's latch is an actor (the seed's
    # CountDownLatch was one too), counted down by async calls, and its await
    # waits on an actor condition. The units are the counting actors and the
    # rounds' latches, each alive from its initialize to its finalizer.
    def self.celluloid(count:, rounds:)
      live = Kit.units
      units = Array.new(count) { |k| CelluloidCounter.new(live, k) }
      woke = 0
      rounds.times do |r|
        latch = CelluloidLatch.new(live, count)
        units.each { |unit| unit.async.count_down(latch, r) }
        latch.await
        woke += 1
        latch.terminate
      end
      totals = units.map(&:totals)
      units.each(&:terminate)
      { rounds: woke, countdowns: totals.sum(&:first), checksum: totals.sum(&:last) % MOD }
    end

    if Kit.loaded?("celluloid")
      class CelluloidCounter
        include Actors::CelluloidUnit

        def initialize(units, k)
          super(units)
          @weight = k + 1
          @countdowns = @tally = 0
        end

        def totals = [@countdowns, @tally]

        def count_down(latch, round)
          latch.async.count_down
          @countdowns += 1
          @tally = (@tally + @weight * (round + 1)) % MOD
        end
      end

      class CelluloidLatch
        include Actors::CelluloidUnit

        def initialize(units, count)
          super(units)
          @count = count
        end

        def count_down
          signal(:zero) if (@count -= 1).zero?
        end

        def await
          wait(:zero) unless @count.zero? # suspends this call's task; count-downs go on
        end
      end
    end

    # Concurrent::CountDownLatch, counted down by Concurrent::Actor units; a
    # request is the latch and its round.
    def self.concurrent(count:, rounds:)
      live = Kit.units
      units = Array.new(count) { |k| ActorCounter.spawn(:counter, live, k) }
      woke = 0
      rounds.times do |r|
        latch = Concurrent::CountDownLatch.new(count)
        units.each { |unit| unit.tell([latch, r]) }
        latch.wait
        woke += 1
      end
      totals = units.map { |unit| unit.ask!(:totals) }
      Actors.terminate(units)
      { rounds: woke, countdowns: totals.sum(&:first), checksum: totals.sum(&:last) % MOD }
    end

    if Kit.loaded?("concurrent")
      class ActorCounter < Actors::Unit
        def initialize(units, k)
          super(units)
          @weight = k + 1
          @countdowns = @tally = 0
        end

        def on_message(message)
          return [@countdowns, @tally] if message == :totals
          latch, round = message
          latch.count_down
          @countdowns += 1
          @tally = (@tally + @weight * (round + 1)) % MOD
        end
      end
    end

    # Processes share no latch object: as in erlang/process, a count-down is
    # a unit's reply, an 8-byte record on the caller's pipe (one write(2),
    # whole under PIPE_BUF whoever else writes), and the caller waits until
    # it has read `count` of them. Each unit's inbox is a pipe of its own
    # bringing the round as r + 1 (a 0 record stops it); each reports
    # [count-downs, tally] through a pipe as it ends.
    def self.process(count:, rounds:)
      count_downs, counted = IO.pipe
      results, report = IO.pipe
      units = Array.new(count) do |k|
        inbox, send = IO.pipe
        pid = Kit.fork do
          weight = k + 1
          countdowns = tally = 0
          while (round = inbox.sysread(8).unpack1("Q<")).nonzero?
            counted.syswrite([round].pack("Q<"))
            countdowns += 1
            tally = (tally + weight * round) % MOD
          end
          report.syswrite([countdowns, tally].pack("Q<2"))
        end
        inbox.close
        [send, pid]
      end
      [counted, report].each(&:close)
      woke = 0
      1.upto(rounds) do |round|
        units.each { |send, _| send.syswrite([round].pack("Q<")) }
        count_downs.read(8 * count)
        woke += 1
      end
      units.each { |send, _| send.syswrite([0].pack("Q<")) }
      totals = results.read.unpack("Q<*").each_slice(2).to_a # EOF once every child has exited
      Kit.wait(units.map(&:last))
      [count_downs, results, *units.map(&:first)].each(&:close)
      { rounds: woke, countdowns: totals.sum(&:first), checksum: totals.sum(&:last) % MOD }
    end

    # A latch on the stock Mutex and ConditionVariable, which block a fiber
    # under a scheduler as they block a thread. It carries its round, which
    # the units learn from it.
    class Countdown
      attr_reader :round

      def initialize(count, round)
        @count = count
        @round = round
        @lock = Thread::Mutex.new
        @zero = Thread::ConditionVariable.new
      end

      def count_down = @lock.synchronize { @zero.broadcast if (@count -= 1).zero? }
      def wait = @lock.synchronize { @zero.wait(@lock) until @count.zero? }
    end

    # `await` ends a unit and returns its [count-downs, tally].
    def self.queued(count, rounds, await)
      live = Kit.units
      inboxes = Array.new(count) { Thread::Queue.new }
      units = inboxes.each_with_index.map do |inbox, k|
        yield proc {
          live.unit do
            weight = k + 1
            countdowns = tally = 0
            while (latch = inbox.pop)
              latch.count_down
              countdowns += 1
              tally = (tally + weight * (latch.round + 1)) % MOD
            end
            [countdowns, tally]
          end
        }
      end
      woke = 0
      rounds.times do |r|
        latch = Countdown.new(count, r)
        inboxes.each { |inbox| inbox << latch }
        latch.wait
        woke += 1
      end
      inboxes.each(&:close)
      totals = units.map(&await)
      { rounds: woke, countdowns: totals.sum(&:first), checksum: totals.sum(&:last) % MOD }
    end
  end
end
