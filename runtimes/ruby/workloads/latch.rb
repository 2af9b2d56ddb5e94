require_relative "actors"

module Workloads
  # `count` units, made at the start of a run, serve all its rounds. In each
  # of `rounds` rounds the caller makes a latch of `count`, asks every unit to
  # count it down once, and waits until it reaches zero. The result is the
  # rounds the caller woke for and the count-downs the units made.
  module Latch
    # Each unit waits on an inbox of its own for the latch to count down;
    # closing the inboxes stops them.
    def self.thread(count:, rounds:) = queued(count, rounds, :value) { |work| Thread.new(&work) }

    def self.fiber(count:, rounds:)
      Sync { |task| queued(count, rounds, :wait) { |work| task.async(&work) } }
    end

    # Celluloid has no latch: each round's latch is an actor (the seed's
    # CountDownLatch was one too), counted down by async calls, and its await
    # waits on an actor condition. The units are the counting actors and the
    # rounds' latches.
    def self.celluloid(count:, rounds:)
      units = Array.new(count) { CelluloidCounter.new }
      woke = 0
      rounds.times do
        latch = CelluloidLatch.new(count)
        units.each { |unit| unit.async.count_down(latch) }
        latch.await
        woke += 1
        latch.terminate
      end
      countdowns = units.sum(&:countdowns)
      units.each(&:terminate)
      [{ rounds: woke, countdowns: countdowns }, count + rounds]
    end

    if defined?(::Celluloid)
      class CelluloidCounter
        include ::Celluloid

        attr_reader :countdowns

        def initialize = @countdowns = 0

        def count_down(latch)
          latch.async.count_down
          @countdowns += 1
        end
      end

      class CelluloidLatch
        include ::Celluloid

        def initialize(count) = @count = count

        def count_down
          signal(:zero) if (@count -= 1).zero?
        end

        def await
          wait(:zero) unless @count.zero? # suspends this call's task; count-downs go on
        end
      end
    end

    # Concurrent::CountDownLatch, counted down by Concurrent::Actor units.
    def self.concurrent(count:, rounds:)
      units = Array.new(count) { ActorCounter.spawn(:counter) }
      woke = 0
      rounds.times do
        latch = Concurrent::CountDownLatch.new(count)
        units.each { |unit| unit.tell(latch) }
        latch.wait
        woke += 1
      end
      countdowns = units.sum { |unit| unit.ask!(:countdowns) }
      Actors.terminate(units)
      [{ rounds: woke, countdowns: countdowns }, count]
    end

    if defined?(::Concurrent::Actor)
      class ActorCounter < ::Concurrent::Actor::Context
        def initialize = @countdowns = 0

        def on_message(message)
          return @countdowns if message == :countdowns
          message.count_down
          @countdowns += 1
        end
      end
    end

    # A latch on the stock Mutex and ConditionVariable, which block a fiber
    # under a scheduler as they block a thread.
    class Countdown
      def initialize(count)
        @count = count
        @lock = Thread::Mutex.new
        @zero = Thread::ConditionVariable.new
      end

      def count_down = @lock.synchronize { @zero.broadcast if (@count -= 1).zero? }
      def wait = @lock.synchronize { @zero.wait(@lock) until @count.zero? }
    end

    # `await` ends a unit and returns the count-downs it made.
    def self.queued(count, rounds, await)
      inboxes = Array.new(count) { Thread::Queue.new }
      units = inboxes.map do |inbox|
        yield proc {
          countdowns = 0
          while (latch = inbox.pop)
            latch.count_down
            countdowns += 1
          end
          countdowns
        }
      end
      woke = 0
      rounds.times do
        latch = Countdown.new(count)
        inboxes.each { |inbox| inbox << latch }
        latch.wait
        woke += 1
      end
      inboxes.each(&:close)
      [{ rounds: woke, countdowns: units.sum(&await) }, count]
    end
  end
end
