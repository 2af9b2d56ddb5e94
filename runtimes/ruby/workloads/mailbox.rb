require_relative "../lib/actors"
require_relative "../lib/stock_queue"

module Workloads
  # A sender unit sends 1..messages to a receiver unit's mailbox, which holds
  # at most `capacity` messages (0: no bound); the receiver takes exactly
  # `messages` of them, counting and summing, and adds k * payload of its
  # k-th message (k from 1) to `ordered` modulo MOD, reduced at each step; it
  # hands its totals back to the caller. The units are the sender and the
  # receiver.
  #
  # `blocked` counts the sends that found the mailbox full and the takes that
  # found it empty, each unit in a local of its own. Threads and tasks look
  # just before the blocking call (stock_queue.rb). The actor libraries'
  # mailboxes have no bound (capacities above 0 are n/a, runtime.toml's
  # limits) and are taken from by the library's own loop, which the receiver
  # cannot watch: it looks when it has handled a message (and as it starts),
  # and counts the next take as blocked if its mailbox is then empty. Another
  # thread may send in between, so that count is what the receiver saw, not
  # always what the take found.
  module Mailbox
    MOD = 1_000_000_007

    def self.thread(messages:, capacity:)
      units = Kit.units
      mailbox = StockQueue.new(capacity)
      receiver = Thread.new { units.unit { receive_queue(mailbox, messages) } }
      sender = Thread.new { units.unit { StockQueue.push_all(mailbox, 1..messages, capacity) } }
      totals(receiver.value, sender.value)
    end

    def self.fiber(messages:, capacity:)
      units = Kit.units
      Kit.sync do |task|
        mailbox = StockQueue.new(capacity)
        receiver = task.async { units.unit { receive_queue(mailbox, messages) } }
        sender = task.async { units.unit { StockQueue.push_all(mailbox, 1..messages, capacity) } }
        sent = sender.wait
        totals(receiver.wait, sent)
      end
    end

    # UringMachine's pure API (lib/um.rb): a UM#spin fiber per unit, the
    # mailbox a UM::Queue (UM#push, UM#shift), which the units call
    # themselves, as queue's um cell does (a wrapper costs 35-60% more a
    # message); the receiver looks at its count just before UM#shift, as the
    # stock queue's popper looks (stock_queue.rb). It has no bound:
    # capacities above 0 are n/a (runtime.toml's limit), and no send waits.
    def self.um(messages:, capacity:)
      raise Kit::Refusal, "a UM::Queue has no bound: capacity must be 0" unless capacity.zero?
      units = Kit.units
      machine = Concbench::Um.machine
      mailbox = UM::Queue.new
      receiver = machine.spin do
        units.unit do
          waits = 0
          taken = receive(messages) do
            empty = mailbox.count.zero?
            value = machine.shift(mailbox)
            waits += 1 if empty
            value
          end
          taken << waits
        end
      end
      sender = machine.spin { units.unit { 1.upto(messages) { |v| machine.push(mailbox, v) } } }
      totals(Concbench::Um.join(machine, [receiver, sender]).first, 0)
    end

    # A ractor's mailbox is its own: Ractor#send to it, Ractor.receive in it.
    # It has no bound (capacities above 0 are n/a), and `blocked` is null:
    # Ractor.receive has no non-blocking form in Ruby 3.1 and an inbox has no
    # size, so a receive that waits cannot be told from one that does not.
    # Each ractor stamps its own start and end and returns them with its value.
    def self.ractor(messages:, capacity:)
      raise Kit::Refusal, "a ractor's inbox has no bound: capacity must be 0" unless capacity.zero?
      receiver = Ractor.new(messages) { |n| [Kit.stamp, Mailbox.receive(n) { Ractor.receive }, Kit.stamp] }
      sender = Ractor.new(receiver, messages) { |to, n| [Kit.stamp, 1.upto(n) { |v| to.send(v) }, Kit.stamp] }
      sent_from, _, sent_until = sender.take
      start, (count, sum, ordered), stop = receiver.take
      Kit.units.spans([[sent_from, sent_until], [start, stop]])
      Kit.evidence(blocked: nil)
      { count: count, sum: sum, ordered: ordered }
    end

    # A message is an async call, which Celluloid queues in the receiver's
    # mailbox and runs there as a task. The caller awaits the sender's call,
    # then asks the receiver for its totals, which waits until it has them.
    def self.celluloid(messages:, capacity:)
      raise Kit::Refusal, "Celluloid's mailboxes have no bound: capacity must be 0" unless capacity.zero?
      units = Kit.units
      receiver = CelluloidReceiver.new(units, messages)
      sender = CelluloidSender.new(units)
      sender.send_all(receiver, messages)
      count, sum, ordered, blocked = receiver.totals
      [sender, receiver].each(&:terminate)
      Kit.evidence(blocked: blocked)
      { count: count, sum: sum, ordered: ordered }
    end

    if Kit.loaded?("celluloid")
      class CelluloidSender
        include Actors::CelluloidUnit

        def send_all(receiver, messages) = 1.upto(messages) { |v| receiver.async.deliver(v) }
      end

      class CelluloidReceiver
        include Actors::CelluloidUnit

        def initialize(units, messages)
          super(units)
          @left = messages
          @count = @sum = @ordered = 0
          @blocked = idle
        end

        def deliver(value)
          @count += 1
          @sum += value
          @ordered = (@ordered + @count * value) % MOD
          if (@left -= 1).zero?
            signal(:done)
          else
            @blocked += idle
          end
        end

        def totals
          wait(:done) unless @left.zero? # suspends this call's task; deliveries go on
          [@count, @sum, @ordered, @blocked]
        end

        private

        # 1 if the actor's mailbox is empty: its loop's next take will wait.
        # Read without the mailbox's lock (Mailbox#size takes it), which the
        # sender takes to send: under the GVL the read is whole.
        def idle = ::Celluloid.mailbox.instance_variable_get(:@messages).empty? ? 1 : 0
      end
    end

    # A message is a tell to a Concurrent::Actor (they run on the global I/O
    # pool's threads). The receiver fulfils a future with its totals.
    def self.concurrent(messages:, capacity:)
      raise Kit::Refusal, "Concurrent::Actor's mailboxes have no bound: capacity must be 0" unless capacity.zero?
      units = Kit.units
      totals = Concurrent::Promises.resolvable_future
      receiver = ActorReceiver.spawn(:receiver, units, messages, totals)
      sender = ActorSender.spawn(:sender, units)
      sender.tell([receiver, messages])
      count, sum, ordered, blocked = totals.value!
      Actors.terminate([sender, receiver])
      Kit.evidence(blocked: blocked)
      { count: count, sum: sum, ordered: ordered }
    end

    if Kit.loaded?("concurrent")
      class ActorSender < Actors::Unit
        def on_message((receiver, messages)) = 1.upto(messages) { |v| receiver.tell(v) }
      end

      # A Concurrent::Actor's mailbox is its core's SerializedExecution: a
      # message is a job stashed there until the actor has handled the ones
      # before it (@stash, which has no public reader). When a message is
      # handled and the stash is empty, the actor goes idle, and its next
      # message waits for a thread of the pool.
      class ActorReceiver < Actors::Unit
        def initialize(units, messages, totals)
          super(units)
          @left, @totals = messages, totals
          @count = @sum = @ordered = 0
          @stash = core.instance_variable_get(:@serialized_execution).instance_variable_get(:@stash)
          @blocked = idle
        end

        def on_message(value)
          @count += 1
          @sum += value
          @ordered = (@ordered + @count * value) % MOD
          if (@left -= 1).zero?
            @totals.fulfill([@count, @sum, @ordered, @blocked])
          else
            @blocked += idle
          end
        end

        private

        def idle = @stash.empty? ? 1 : 0
      end
    end

    # The receiver: takes `messages` messages with the block and returns
    # [count, sum, ordered].
    def self.receive(messages)
      count = sum = ordered = 0
      messages.times do
        value = yield
        count += 1
        sum += value
        ordered = (ordered + count * value) % MOD
      end
      [count, sum, ordered]
    end

    # The threads' and tasks' receiver: as receive, and the takes that found
    # the mailbox empty.
    def self.receive_queue(mailbox, messages)
      waits = [0]
      receive(messages, &StockQueue.popper(mailbox, waits)) << waits[0]
    end

    def self.totals((count, sum, ordered, taken), sent)
      Kit.evidence(blocked: taken + sent)
      { count: count, sum: sum, ordered: ordered }
    end
  end
end
