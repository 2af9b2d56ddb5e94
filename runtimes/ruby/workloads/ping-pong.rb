require_relative "../lib/actors"

module Workloads
  # `pairs` pairs at once: a pinger sends its ponger a count, 0 first; the
  # ponger sends back the count plus one; the pinger sends that reply plus
  # one, until it has had `rounds` replies. Each pinger then stops its ponger
  # and reports its last reply; the caller awaits every unit and sums them.
  # The units are the pingers and the pongers.
  #
  # The actor mechanisms make each ponger knowing its pinger, as ring makes
  # each node knowing the next; the pinger learns its ponger as it starts.
  module PingPong
    # Each unit waits on an inbox of its own; closing the ponger's inbox stops it.
    def self.thread(pairs:, rounds:) = queued(pairs, rounds, :value) { |work| Thread.new(&work) }

    def self.fiber(pairs:, rounds:)
      Kit.sync { |task| queued(pairs, rounds, :wait) { |work| task.async(&work) } }
    end

    # UringMachine's pure API (lib/um.rb): a UM#spin fiber per unit, awaited
    # with UM#join, its inbox a UM::Queue (UM#push, UM#shift).
    def self.um(pairs:, rounds:)
      machine = Concbench::Um.machine
      queued(pairs, rounds, :wait, -> { Concbench::UmQueue.new(machine) }) { |work| Concbench::Um::Spun.new(machine, machine.spin(&work)) }
    end

    # A ractor's inbox is its own: Ractor#send to it, Ractor.receive in it.
    # The pinger closes its ponger's inbox, which makes its receive raise and
    # ends its loop. Each ractor stamps its own start and end and returns them
    # with its value.
    def self.ractor(pairs:, rounds:)
      played = Array.new(pairs) do
        pinger = Ractor.new(rounds) do |n|
          start = Kit.stamp
          ponger = Ractor.receive
          reply = PingPong.pinger(n, ponger) { Ractor.receive }
          ponger.close_incoming
          [start, reply, Kit.stamp]
        end
        ponger = Ractor.new(pinger) do |to|
          start = Kit.stamp
          loop { to.send(Ractor.receive + 1) } # ends when the receive raises (Ractor::ClosedError is a StopIteration)
          [start, Kit.stamp]
        end
        pinger.send(ponger)
        [pinger, ponger]
      end
      spans = []
      count = played.sum do |pinger, ponger|
        start, reply, stop = pinger.take
        spans << [start, stop] << ponger.take
        reply
      end
      Kit.units.spans(spans)
      { count: count }
    end

    # A message is an async call. Each pinger's play is a future of the
    # caller's, which waits (a task suspended, the actor still serving calls)
    # until the last reply signals its count; the caller then terminates
    # every actor. An actor counts itself alive from its initialize to its
    # finalizer.
    def self.celluloid(pairs:, rounds:)
      units = Kit.units
      actors = Array.new(pairs) do
        pinger = CelluloidPinger.new(units, rounds)
        [pinger, CelluloidPonger.new(units, pinger)]
      end
      plays = actors.map { |pinger, ponger| pinger.future.play(ponger) }
      count = plays.sum(&:value)
      actors.flatten.each(&:terminate)
      { count: count }
    end

    if Kit.loaded?("celluloid")
      class CelluloidPonger
        include Actors::CelluloidUnit

        def initialize(units, pinger)
          super(units)
          @pinger = pinger
        end

        def ping(count) = @pinger.async.pong(count + 1)
      end

      class CelluloidPinger
        include Actors::CelluloidUnit

        def initialize(units, rounds)
          super(units)
          @rounds = rounds
        end

        def play(ponger)
          @ponger = ponger
          ponger.async.ping(0)
          wait(:played)
        end

        def pong(count) = (@rounds -= 1).zero? ? signal(:played, count) : @ponger.async.ping(count + 1)
      end
    end

    # A message is a tell to a Concurrent::Actor; each pinger fulfils a
    # future with its last reply. An actor counts itself alive from its
    # initialize to its termination.
    def self.concurrent(pairs:, rounds:)
      units = Kit.units
      plays = Array.new(pairs) { Concurrent::Promises.resolvable_future }
      actors = plays.map do |played|
        pinger = ActorPinger.spawn(:pinger, units, rounds, played)
        ponger = ActorPonger.spawn(:ponger, units, pinger)
        pinger.tell(ponger)
        [pinger, ponger]
      end
      count = Concurrent::Promises.zip(*plays).value!.sum
      Actors.terminate(actors.flatten)
      { count: count }
    end

    if Kit.loaded?("concurrent")
      class ActorPonger < Actors::Unit
        def initialize(units, pinger)
          super(units)
          @pinger = pinger
        end

        def on_message(count) = @pinger.tell(count + 1)
      end

      class ActorPinger < Actors::Unit
        def initialize(units, rounds, played)
          super(units)
          @rounds, @played = rounds, played
        end

        # The first message is the ponger to play with; then its replies.
        def on_message(message)
          if @ponger.nil?
            (@ponger = message).tell(0)
          elsif (@rounds -= 1).zero?
            @played.fulfill(message)
          else
            @ponger.tell(message + 1)
          end
        end
      end
    end

    # A pinger and a ponger with an inbox each (made by `make_inbox`), per
    # pair; `await` ends a unit.
    def self.queued(pairs, rounds, await, make_inbox = -> { Thread::Queue.new })
      live = Kit.units
      units = Array.new(pairs) do
        inbox, ponger_inbox = make_inbox.call, make_inbox.call
        [yield(proc { live.unit { pinger(rounds, ponger_inbox) { inbox.pop }.tap { ponger_inbox.close } } }),
         # a closed queue's pop returns nil once it is empty
         yield(proc { live.unit { while (count = ponger_inbox.pop) do inbox << count + 1 end } })]
      end
      replies = units.map { |pinger, _| pinger.public_send(await) }
      units.each { |_, ponger| ponger.public_send(await) }
      { count: replies.sum }
    end

    # The pinger: sends 0, then each reply (taken with the block) plus one,
    # until it has had `rounds` replies; returns the last.
    def self.pinger(rounds, ponger)
      reply = -1 # so that the first count sent is 0
      rounds.times do
        ponger << reply + 1
        reply = yield
      end
      reply
    end
  end
end
