# Concbench's own Fiber::Scheduler (issue 15; not UringMachine), on two
# event sources: UringScheduler on one io_uring, EpollScheduler on one epoll
# set. Their loops differ in language, a difference the tables carry:
#
# - UringScheduler is Concbench::Ring (ext/events/ring.c, issue 34): the
#   ring, the waiting fibers and the completion loop in C, after
#   UringMachine's design. Its hooks are C methods; a fiber that must wait
#   submits an operation (a C struct, no Ruby object) and yields to the
#   loop, which resumes it from C when the completion arrives. It also
#   offers the direct API the uring_direct row calls: read, write and sleep,
#   and a Mutex and a Queue whose waiters are fibers parked in C.
# - EpollScheduler is issue 15's loop, in Ruby, on Concbench::Epoll
#   (ext/events/epoll.c): each fiber that must wait submits a poll or a
#   timeout with an id of its own and yields to the loop (#run); the loop
#   waits for events (the GVL released) and resumes each fiber with its
#   result. Reads and writes are made at once and, when the descriptor would
#   block, again after a poll. It has not been moved onto the C core (time
#   ran out in issue 34): ruby/uring against ruby/epoll compares a C loop on
#   io_uring with a Ruby loop on epoll, not the event sources alone.
#
# Both: fibers blocked on a Mutex, Queue or ConditionVariable (#block) are
# resumed from a ready list (#unblock); an unblock from another thread wakes
# the loop through a descriptor it always polls; fibers left blocked with
# nothing to wake them raise Deadlock.
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

# Concbench::Ring (a Scheduler) and Concbench::Epoll.
require_relative "build/#{RbConfig::CONFIG["ruby_version"]}/concbench_events"

module Concbench
  # The scheduler on io_uring, its core in C (ring.c).
  class UringScheduler < Ring
    def initialize = super(256)
  end

  # The scheduler on epoll, its loop in Ruby: reads and writes are made at
  # once (#transfer polls and tries again when they would block).
  class EpollScheduler < Scheduler
    POLLIN = 0x001
    POLLOUT = 0x004
    EAGAIN = Errno::EAGAIN::Errno
    ETIME = Errno::ETIME::Errno
    WAKEUP = 0 # the id of the wake-up pipe's poll

    def initialize
      @events = Epoll.new(256)
      @ids = 0
      @waiting = {} # id => the fiber its completion resumes
      @alarms = {}  # id => [fiber, exception, message]: #timeout_after's
      @ready = []   # fibers unblocked, to be resumed by the loop
      # Fibers suspended in #block or #pass: only these may be resumed from
      # @ready. Stock Queue and Mutex may unblock a fiber that has already
      # gone on (a spurious wake-up, which they allow for): resuming it then
      # would wake it from whatever it waits for next, an I/O the kernel may
      # still be writing into.
      @blocking = {}
      @wakeup, @wake = IO.pipe
      @events.poll(WAKEUP, @wakeup.fileno, POLLIN)
      @thread = Thread.current
      @closed = false
    end

    # What the event source has done: submissions and system calls.
    def counts = @events.counts

    # ---- the loop -----------------------------------------------------------

    # The loop: until no fiber waits for an operation or a wake-up. @ready is
    # read and changed without a lock: Array#<<, #shift and #empty? are single
    # C calls, in which no other thread runs under the GVL.
    def run
      while true
        resume_ready
        break if @waiting.empty? && @blocking.empty?
        raise_deadlock(@blocking.size) if deadlocked?
        @events.wait(@ready.empty?) { |id, result| complete(id, result) }
      end
    end

    def close
      return if @closed
      run
      @closed = true
      @events.close
      @wakeup.close
      @wake.close
    end

    # ---- I/O ----------------------------------------------------------------

    # The events the descriptor is ready for (a one-shot poll), or false if
    # timeout seconds pass first.
    def io_wait(io, events, timeout = nil)
      result = timeout ? poll_until(io.fileno, events, timeout) : submit { |id| @events.poll(id, io.fileno, events) }
      return false if result == -ETIME
      raise SystemCallError.new("poll", -result) if result.negative?
      result
    end

    # Reads at least length bytes (one read if length is 0) into the buffer
    # from offset on (Ruby 3.2 and later pass the offset; 3.1 does not); the
    # bytes read, 0 at end of file, or -errno.
    def io_read(io, buffer, length, offset = 0)
      transfer(io, length, POLLIN) { |done| read_some(io.fileno, buffer, offset + done, buffer.size - offset - done) }
    end

    # Writes the buffer from offset on, at least length bytes of it (one
    # write if length is 0); the bytes written, or -errno.
    def io_write(io, buffer, length, offset = 0)
      transfer(io, length, POLLOUT) { |done| write_some(io.fileno, buffer, offset + done, buffer.size - offset - done) }
    end

    # IO#pread and IO#pwrite (Ruby 3.3 and later call these hooks, 3.2's
    # IO::Buffer#pread and #pwrite too): as io_read and io_write, at the
    # file's position from. Ruby 3.1's hooks of these names take other
    # arguments and only IO::Buffer calls them: left to Ruby there.
    if RUBY_VERSION >= "3.2"
      def io_pread(io, buffer, from, length, offset)
        transfer(io, length, POLLIN) { |done| read_some(io.fileno, buffer, offset + done, buffer.size - offset - done, from + done) }
      end

      def io_pwrite(io, buffer, from, length, offset)
        transfer(io, length, POLLOUT) { |done| write_some(io.fileno, buffer, offset + done, buffer.size - offset - done, from + done) }
      end
    end

    # ---- time ---------------------------------------------------------------

    def kernel_sleep(duration = nil)
      return block(:sleep, nil) unless duration
      submit { |id| @events.timeout(id, nanoseconds(duration)) }
      nil
    end

    # Runs the block; if it takes more than duration seconds, raises the
    # exception in its fiber wherever the fiber waits (Timeout.timeout).
    def timeout_after(duration, exception, message)
      alarm = next_id
      @events.timeout(alarm, nanoseconds(duration))
      @alarms[alarm] = [Fiber.current, exception, message]
      yield duration
    ensure
      @events.cancel(next_id, alarm) if @alarms.delete(alarm)
    end

    # ---- Mutex, Queue, ConditionVariable --------------------------------------

    # Suspends the fiber until #unblock (true), or until timeout seconds (false).
    def block(_blocker, timeout = nil)
      return suspend(Fiber.current) unless timeout
      with_timer(timeout) { suspend(Fiber.current) } == true
    end

    def unblock(_blocker, fiber)
      @ready << fiber
      @wake.write_nonblock(".", exception: false) unless Thread.current == @thread
    end

    # Lets every other ready fiber run, then goes on (a Task's yield).
    def pass
      @ready << Fiber.current
      suspend(Fiber.current)
    end

    private

    def next_id = (@ids += 1)

    def nanoseconds(seconds) = (seconds * 1e9).round

    def suspend(fiber)
      @blocking[fiber] = true
      Fiber.yield
    ensure
      @blocking.delete(fiber)
    end

    # Submits an operation for the current fiber and suspends it until the
    # operation completes; its result. An exception raised into the fiber
    # meanwhile (#timeout_after) waits for the operation to end first: the
    # kernel may be using its buffer.
    def submit
      id = next_id
      yield id
      @waiting[id] = Fiber.current
      Fiber.yield
    rescue Exception # rubocop:disable Lint/RescueException -- re-raised
      if @waiting.key?(id)
        @events.cancel(next_id, id)
        Fiber.yield while @waiting.key?(id)
      end
      raise
    end

    # Runs the block (which suspends the fiber) with a timeout that resumes
    # the fiber with -ETIME; the block's value.
    def with_timer(timeout)
      timer = next_id
      @events.timeout(timer, nanoseconds(timeout))
      @waiting[timer] = Fiber.current
      yield
    ensure
      @events.cancel(next_id, timer) if @waiting.delete(timer)
    end

    # A poll that gives up after timeout seconds: the events, or -ETIME (the
    # poll then cancelled).
    def poll_until(fd, events, timeout)
      poll = next_id
      @events.poll(poll, fd, events)
      @waiting[poll] = Fiber.current
      with_timer(timeout) { Fiber.yield }
    ensure
      @events.cancel(next_id, poll) if @waiting.delete(poll)
    end

    # A read or write until length bytes moved (one if length is 0): a
    # descriptor that would block (non-blocking, as Ruby opens them) is
    # polled, then tried again. The block moves bytes from an offset.
    def transfer(io, length, events)
      done = 0
      while true
        result = yield done
        if result == -EAGAIN
          io_wait(io, events)
          next
        end
        return result if result.negative?
        done += result
        return done if result.zero? || done >= length
      end
    end

    def complete(id, result)
      return rearm_wakeup if id == WAKEUP
      if (fiber = @waiting.delete(id))
        fiber.resume(result)
      elsif (alarm = @alarms.delete(id)) # only an alarm that went off: #timeout_after deletes its own
        fiber, exception, message = alarm
        fiber.raise(exception, message) if fiber.alive?
      end
    end

    def rearm_wakeup
      @wakeup.read_nonblock(4096, exception: false)
      @events.poll(WAKEUP, @wakeup.fileno, POLLIN)
    end

    def resume_ready
      while (fiber = @ready.shift)
        fiber.resume(true) if @blocking.delete(fiber) # else not waiting for this any more
      end
    end

    # Fibers are blocked, nothing is in flight or ready, and no other thread
    # lives to unblock them.
    def deadlocked?
      @waiting.empty? && @ready.empty? && !@blocking.empty? && Thread.list.none? { |t| t != @thread && t.alive? }
    end

    def read_some(fd, buffer, offset, length, position = -1) = @events.read_now(fd, buffer, offset, length, position)

    def write_some(fd, buffer, offset, length, position = -1) = @events.write_now(fd, buffer, offset, length, position)
  end

  # What a workload written for async's tasks uses: async { } starts a fiber
  # and returns its handle, whose wait returns the block's value; yield lets
  # the other fibers run.
  class Task
    def initialize(scheduler)
      @scheduler = scheduler
    end

    def async(&block)
      handle = Handle.new
      Fiber.schedule { handle.resolve(block.call(self)) }
      handle
    end

    def yield = @scheduler.pass
  end

  # A fiber's result, awaited through a stock Queue (the scheduler's block).
  class Handle
    def initialize
      @queue = Thread::Queue.new
      @done = false
    end

    def resolve(value) = @queue << value

    def wait
      @value, @done = @queue.pop, true unless @done
      @value
    end
  end
end
