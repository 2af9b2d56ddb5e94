module Workloads
  # What the actor mechanisms of several workloads share.
  module Actors
    # Concurrent::Actor has no blocking terminate: tell each actor (a Unit) it
    # is finished, ask it to terminate, then wait until every one has. An
    # actor handles one sender's messages in order, so each has finished
    # before its termination resolves.
    def self.terminate(refs)
      refs.each { |ref| ref.tell(Unit::FINISH) }
      Concurrent::Promises.zip(*refs.map { |ref| ref.ask(:terminate!) }).wait!
    end

    if Kit.loaded?("concurrent")
      # A Concurrent::Actor that counts itself on the run's units (Kit.units),
      # alive from its initialize to the last message it handles, FINISH,
      # which Actors.terminate sends it just before its termination (the
      # termination's own event comes after the termination has resolved).
      class Unit < ::Concurrent::Actor::Context
        FINISH = :finish_unit

        def initialize(units)
          (@units = units).start
        end

        def on_envelope(envelope)
          envelope.message == FINISH ? @units.finish : super
        end
      end
    end

    if Kit.loaded?("celluloid")
      # A Celluloid actor that counts itself on the run's units (Kit.units),
      # alive from its initialize to its finalizer, both run by the actor.
      # The including class calls super(units) first in its initialize.
      module CelluloidUnit
        def self.included(actor)
          actor.include(::Celluloid)
          actor.finalizer(:finish_unit)
        end

        def initialize(units)
          (@units = units).start
        end

        def finish_unit = @units.finish
      end
    end
  end
end
