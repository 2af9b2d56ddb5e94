# UringMachine (github.com/digital-fabric/uringmachine), the UringMachine
# seed's subject, for the um and um_fs rows: loaded for their trials only
# (protocol.rb's LIBRARIES), never by another row. It needs Ruby 3.4 or later
# (0.22.1, the newest release without Ruby 3.5's Set C API, runs on 3.4).
require "uringmachine"
require "uringmachine/fiber_scheduler"
require_relative "tasks"

module Concbench
  # The um row: UringMachine's pure API, called by the units. Its benchmark
  # scripts make the pure API's machine with UM.new(4096), and the fiber
  # scheduler's with UM.new: both take the ring's entries and an SQPOLL
  # idle timeout, given here, not left to defaults (1.0.0's keywords turn on
  # its "sidecar" mode when left out).
  module Um
    ENTRIES = 4096
    SQPOLL = nil # no kernel thread polling the ring: one thread, as the other rows

    def self.machine = UM.new(ENTRIES, SQPOLL)

    # Waits for the fibers (UM#spin's) and returns their values. UringMachine
    # keeps an exception that ended a fiber as its result: it is raised here.
    def self.join(machine, fibers)
      return [] if fibers.empty?
      values = machine.join(*fibers)
      values = [values] if fibers.size == 1
      values.each { |value| raise value if value.is_a?(Exception) }
    end

    # A UM#spin fiber as the workloads written for tasks' handles await one
    # (ring's and ping-pong's queued): wait is UM#join's.
    Spun = Struct.new(:machine, :fiber) do
      def wait = Um.join(machine, [fiber]).first
    end
  end

  # A UM::Queue and its machine as an inbox, with Thread::Queue's interface
  # as ring's and ping-pong's queued use it: << pushes (UM#push), pop shifts
  # (UM#shift: first in, first out, as UringMachine's benchmark takes), and
  # close, for an inbox of one reader, pushes the nil that a closed
  # Thread::Queue's pop returns (a UM::Queue has no close). Their hops cost
  # a fiber switch each, next to which the wrapper's call is small; queue
  # and mailbox, whose cost is the pushes and shifts, call the machine
  # themselves.
  class UmQueue
    def initialize(machine)
      @machine, @queue = machine, UM::Queue.new
    end

    def <<(value) = @machine.push(@queue, value)
    def pop = @machine.shift(@queue)
    def close = @machine.push(@queue, nil)
  end

  # The um_fs row: UringMachine's Fiber::Scheduler (UM::FiberScheduler)
  # under the fiber row's code (protocol.rb's FIBER_ROWS), with the stock IO,
  # Mutex and Queue: Kit.sync runs the block in a fiber under it, on a
  # machine of its own, as Concbench::Scheduler.sync does.
  class UmScheduler < UringMachine::FiberScheduler
    def self.sync
      scheduler = new(Um.machine)
      Fiber.set_scheduler(scheduler)
      result = nil
      caller = Fiber.schedule { result = yield UmTask.new(scheduler) }
      scheduler.join # every fiber it started, as its benchmark scripts end
      Fiber.set_scheduler(nil)
      raise caller.result if caller.result.is_a?(Exception)
      result
    end

    # Task#yield: the scheduler's own yield hook (Ruby 3.5 calls it; 3.4 has
    # none), which is UM#snooze.
    def pass = self.yield
  end

  # UringMachine keeps the exception that ended a fiber as the fiber's
  # result, where the other schedulers raise it: a task's exception is
  # handed to its handle, whose wait raises it.
  class UmTask < Task
    def async(&block)
      handle = UmHandle.new
      Fiber.schedule do
        handle.resolve(block.call(self))
      rescue Exception => e
        handle.fail(e)
      end
      handle
    end
  end

  class UmHandle < Handle
    def fail(error)
      @error = error
      resolve(nil)
    end

    def wait = super.tap { raise @error if @error }
  end
end
