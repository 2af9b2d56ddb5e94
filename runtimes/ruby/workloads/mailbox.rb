require_relative "actors"

module Workloads
  # A sender unit sends 1..messages to a receiver unit's mailbox; the receiver
  # takes exactly `messages` of them, counting and summing, and hands its
  # totals back to the caller. The units are the sender and the receiver.
  module Mailbox
    # The mailbox is a Thread::Queue.
    def self.thread(messages:)
      mailbox = Thread::Queue.new
      receiver = Thread.new { receive(messages) { mailbox.pop } }
      Thread.new { 1.upto(messages) { |v| mailbox << v } }.join
      [receiver.value, 2]
    end

    def self.fiber(messages:)
      Sync do |task|
        mailbox = Thread::Queue.new
        receiver = task.async { receive(messages) { mailbox.pop } }
        task.async { 1.upto(messages) { |v| mailbox << v } }.wait
        [receiver.wait, 2]
      end
    end

    # A ractor's mailbox is its own: Ractor#send to it, Ractor.receive in it.
    def self.ractor(messages:)
      receiver = Ractor.new(messages) { |n| Mailbox.receive(n) { Ractor.receive } }
      Ractor.new(receiver, messages) { |to, n| 1.upto(n) { |v| to.send(v) } }.take
      [receiver.take, 2]
    end

    # A message is an async call, which Celluloid queues in the receiver's
    # mailbox and runs there as a task. The caller awaits the sender's call,
    # then asks the receiver for its totals, which waits until it has them.
    def self.celluloid(messages:)
      receiver = CelluloidReceiver.new(messages)
      sender = CelluloidSender.new
      sender.send_all(receiver, messages)
      totals = receiver.totals
      [sender, receiver].each(&:terminate)
      [totals, 2]
    end

    if defined?(::Celluloid)
      class CelluloidSender
        include ::Celluloid

        def send_all(receiver, messages) = 1.upto(messages) { |v| receiver.async.deliver(v) }
      end

      class CelluloidReceiver
        include ::Celluloid

        def initialize(messages)
          @left = messages
          @count = @sum = 0
        end

        def deliver(value)
          @count += 1
          @sum += value
          signal(:done) if (@left -= 1).zero?
        end

        def totals
          wait(:done) unless @left.zero? # suspends this call's task; deliveries go on
          { count: @count, sum: @sum }
        end
      end
    end

    # A message is a tell to a Concurrent::Actor (they run on the global I/O
    # pool's threads). The receiver fulfils a future with its totals.
    def self.concurrent(messages:)
      totals = Concurrent::Promises.resolvable_future
      receiver = ActorReceiver.spawn(:receiver, messages, totals)
      sender = ActorSender.spawn(:sender)
      sender.tell([receiver, messages])
      result = totals.value!
      Actors.terminate([sender, receiver])
      [result, 2]
    end

    if defined?(::Concurrent::Actor)
      class ActorSender < ::Concurrent::Actor::Context
        def on_message((receiver, messages)) = 1.upto(messages) { |v| receiver.tell(v) }
      end

      class ActorReceiver < ::Concurrent::Actor::Context
        def initialize(messages, totals)
          @left, @totals = messages, totals
          @count = @sum = 0
        end

        def on_message(value)
          @count += 1
          @sum += value
          @totals.fulfill({ count: @count, sum: @sum }) if (@left -= 1).zero?
        end
      end
    end

    # Takes `messages` messages with the block, counting and summing them.
    def self.receive(messages)
      count = sum = 0
      messages.times do
        sum += yield
        count += 1
      end
      { count: count, sum: sum }
    end
  end
end
