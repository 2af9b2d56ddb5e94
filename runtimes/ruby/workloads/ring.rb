require_relative "../lib/actors"

module Workloads
  # `nodes` units in a ring, each knowing the next. The first starts a token
  # at count 0; every pass adds one. When the token reaches the first unit for
  # the `laps`-th time, the first unit stops it and reports its count; then
  # every unit is stopped and awaited. The units are the nodes, the first
  # included.
  #
  # The actor mechanisms build the ring as Celluloid's ring example does: each
  # node is made knowing the node made before it, the first of them knowing
  # the head; the head learns the last one when it starts the token.
  module Ring
    # Each unit waits on an inbox of its own; closing the inboxes stops them.
    def self.thread(nodes:, laps:) = queued(nodes, laps, :value) { |work| Thread.new(&work) }

    def self.fiber(nodes:, laps:)
      Kit.sync { |task| queued(nodes, laps, :wait) { |work| task.async(&work) } }
    end

    # UringMachine's pure API (lib/um.rb): a UM#spin fiber per node, awaited
    # with UM#join, its inbox a UM::Queue (UM#push, UM#shift).
    def self.um(nodes:, laps:)
      machine = Concbench::Um.machine
      queued(nodes, laps, :wait, -> { Concbench::UmQueue.new(machine) }) { |work| Concbench::Um::Spun.new(machine, machine.spin(&work)) }
    end

    # A ractor's inbox is its own: Ractor#send to it, Ractor.receive in it.
    # Closing a node's inbox makes its receive raise, which ends its loop.
    # Each ractor stamps its own start and end and returns them with its value.
    def self.ractor(nodes:, laps:)
      head = Ractor.new(laps) { |n| [Kit.stamp, Ring.head(n, Ractor.receive) { Ractor.receive }, Kit.stamp] }
      link = head
      others = Array.new(nodes - 1) do
        link = Ractor.new(link) do |to|
          start = Kit.stamp
          loop { to.send(Ractor.receive + 1) } # ends when the receive raises (Ractor::ClosedError is a StopIteration)
          [start, Kit.stamp]
        end
      end
      head.send(link)
      start, hops, stop = head.take
      spans = [[start, stop]] + others.map { |node| node.close_incoming; node.take }
      Kit.units.spans(spans)
      { hops: hops }
    end

    # A pass is an async call. The head's run waits (a task suspended, the
    # actor still serving calls) until its last lap signals the count.
    # An actor counts itself alive from its initialize to its finalizer.
    def self.celluloid(nodes:, laps:)
      units = Kit.units
      head = CelluloidHead.new(units, laps)
      link = head
      others = Array.new(nodes - 1) { link = CelluloidNode.new(units, link) }
      hops = head.run(link)
      [head, *others].each(&:terminate)
      { hops: hops }
    end

    if Kit.loaded?("celluloid")
      class CelluloidNode
        include Actors::CelluloidUnit

        def initialize(units, link)
          super(units)
          @link = link
        end

        def pass(count) = @link.async.pass(count + 1)
      end

      class CelluloidHead
        include Actors::CelluloidUnit

        def initialize(units, laps)
          super(units)
          @laps = laps
        end

        def run(link)
          @link = link
          link.async.pass(1)
          wait(:lapped)
        end

        def pass(count) = (@laps -= 1).zero? ? signal(:lapped, count) : @link.async.pass(count + 1)
      end
    end

    # A pass is a tell to a Concurrent::Actor; the head fulfils a future with the count.
    # An actor counts itself alive from its initialize to its termination.
    def self.concurrent(nodes:, laps:)
      units = Kit.units
      lapped = Concurrent::Promises.resolvable_future
      head = ActorHead.spawn(:head, units, laps, lapped)
      link = head
      others = Array.new(nodes - 1) { link = ActorNode.spawn(:node, units, link) }
      head.tell(link)
      hops = lapped.value!
      Actors.terminate([head, *others])
      { hops: hops }
    end

    if Kit.loaded?("concurrent")
      class ActorNode < Actors::Unit
        def initialize(units, link)
          super(units)
          @link = link
        end

        def on_message(count) = @link.tell(count + 1)
      end

      class ActorHead < Actors::Unit
        def initialize(units, laps, lapped)
          super(units)
          @laps, @lapped = laps, lapped
        end

        # The first message is the node to pass to; then the token's counts.
        def on_message(message)
          if @link.nil?
            (@link = message).tell(1)
          elsif (@laps -= 1).zero?
            @lapped.fulfill(message)
          else
            @link.tell(message + 1)
          end
        end
      end
    end

    # Unit i passes to unit i + 1, the last to the first; `await` ends a unit;
    # `make_inbox` makes a unit's inbox.
    def self.queued(nodes, laps, await, make_inbox = -> { Thread::Queue.new })
      live = Kit.units
      inboxes = Array.new(nodes) { make_inbox.call }
      units = Array.new(nodes) do |i|
        inbox, link = inboxes[i], inboxes[(i + 1) % nodes]
        yield(if i.zero?
                proc { live.unit { head(laps, link) { inbox.pop } } }
              else
                proc { live.unit { while (count = inbox.pop) do link << count + 1 end } }
              end)
      end
      hops = units.first.public_send(await)
      inboxes.each(&:close) # a closed queue's pop returns nil once it is empty
      units.each(&await)
      { hops: hops }
    end

    # The head: starts the token, takes it back with the block `laps` times
    # and returns its count.
    def self.head(laps, link)
      count = 0
      laps.times do
        link << count + 1
        count = yield
      end
      count
    end
  end
end
