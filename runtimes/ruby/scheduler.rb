# Concbench's own Fiber::Scheduler (issues 15 and 34; not UringMachine, but
# after its design), on two event sources: UringScheduler on one io_uring,
# EpollScheduler on one epoll set. Both are Concbench::Core
# (ext/events/core.c), the scheduler in C: the waiting fibers and the loop
# that reaps completions and resumes them from C, with the hooks as C
# methods; a fiber that must wait hands an operation (a C struct, no Ruby
# object) to the back end and yields to the loop. The back ends differ in
# reads and writes only: on the ring they are io_uring reads and writes into
# the IO::Buffer Ruby hands over (so a file write yields as a pipe write
# does); on epoll they are made at once and, when the descriptor would
# block, again after a poll. One design with two back ends, so that a table
# can tell io_uring against epoll apart from this scheduler against async's.
#
# The core also offers the direct API the uring_direct row calls: read,
# write and sleep, and a Mutex and a Queue whose waiters are fibers parked
# in C. Fibers blocked on a stock Mutex, Queue or ConditionVariable (#block)
# are resumed from the ready list (#unblock); an unblock from another thread
# wakes the loop through an eventfd it always polls; fibers left blocked
# with nothing to wake them raise Deadlock.
require_relative "lib/tasks"

module Concbench
  # What both schedulers share.
  class Scheduler
    # The block's fibers waited on one another with nothing in flight to wake
    # them and no other thread to: a deadlock, which threads would end with a
    # fatal error too.
    class Deadlock < StandardError; end

    def fiber(&block)
      fiber = Fiber.new(blocking: false, &block)
      fiber.resume
      fiber
    end

    def process_wait(pid, flags)
      Thread.new { Process::Status.wait(pid, flags) }.value
    end

    # Runs the block in a fiber under a new scheduler on this thread, with a
    # Task to start and await fibers, as async's Sync does; returns its value
    # once every fiber has finished (the scheduler closed).
    def self.sync
      scheduler = new
      Fiber.set_scheduler(scheduler)
      result = nil
      Fiber.schedule { result = yield Task.new(scheduler) }
      Fiber.set_scheduler(nil) # runs the loop to the end
      result
    end

    private

    def raise_deadlock(blocked) = raise(Deadlock, "#{blocked} fibers blocked with nothing left to wake them")
  end
end

# Concbench::Core, a Scheduler.
require_relative "build/#{RbConfig::CONFIG["ruby_version"]}/concbench_events"

module Concbench
  # The scheduler on io_uring: reads and writes are ring operations.
  class UringScheduler < Core
    def initialize = super(:uring, 256)
  end

  # The scheduler on epoll: reads and writes are made at once, and again
  # after a poll when they would block.
  class EpollScheduler < Core
    def initialize = super(:epoll, 256)
  end
end
