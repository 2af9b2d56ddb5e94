# A Fiber::Scheduler on one io_uring (Concbench::Ring, ext/uring/ring.c):
# concbench's own, written for issue 15's ruby/uring row; not UringMachine.
#
# Each fiber that must wait submits one operation with an id of its own and
# yields to the loop (#run); the loop submits what is prepared, waits for
# completions (the GVL released) and resumes each fiber with its result.
# Reads and writes are real io_uring reads and writes into the IO::Buffer
# Ruby hands over, so a file write yields as a pipe write does. Fibers
# blocked on a Mutex, Queue or ConditionVariable (#block) are resumed from
# the ready list (#unblock); an unblock from another thread wakes the loop
# through a pipe whose read end the ring always polls.
require_relative "build/concbench_ring"

module Concbench
  class UringScheduler
    POLLIN = 0x001
    POLLOUT = 0x004
    EAGAIN = Errno::EAGAIN::Errno
    WAKEUP = 0 # the id of the wake-up pipe's poll

    def initialize(entries: 256)
      @ring = Ring.new(entries)
      @ids = 0
      @waiting = {}   # id => fiber suspended until that operation completes
      @timeouts = {}  # fiber => the id of its block's timeout
      @ready = []     # fibers unblocked, to be resumed by the loop
      # Fibers suspended in #block or #pass: only these may be resumed from
      # @ready. Stock Queue and Mutex may unblock a fiber that has already
      # gone on (a spurious wake-up, which they allow for): resuming it then
      # would wake it from whatever it waits for next, an I/O the kernel is
      # still writing into.
      @blocking = {}
      @lock = Thread::Mutex.new # guards @ready: #unblock may run on another thread
      @wakeup, @wake = IO.pipe
      @ring.poll(WAKEUP, @wakeup.fileno, POLLIN)
      @thread = Thread.current
      @closed = false
    end

    def counts = @ring.counts

    # ---- fibers -------------------------------------------------------------

    def fiber(&block)
      fiber = Fiber.new(blocking: false, &block)
      fiber.resume
      fiber
    end

    # The loop: until no fiber waits for the ring or a wake-up.
    def run
      loop do
        resume_ready
        break if @waiting.empty? && @blocking.empty?
        @ring.wait(@lock.synchronize { @ready.empty? }).each { |id, result| complete(id, result) }
      end
    end

    def close
      return if @closed
      run
      @closed = true
      @ring.close
      @wakeup.close
      @wake.close
    end

    # ---- I/O ----------------------------------------------------------------

    # The events the descriptor is ready for (a one-shot poll); the timeout is
    # not supported yet (no workload waits with one).
    def io_wait(io, events, _timeout = nil)
      result = submit { |id| @ring.poll(id, io.fileno, events) }
      raise SystemCallError.new("poll", -result) if result.negative?
      result
    end

    # Reads at least length bytes (one read if length is 0) into the buffer;
    # the bytes read, 0 at end of file, or -errno.
    def io_read(io, buffer, length)
      transfer(io, buffer, length, POLLIN) { |id, offset| @ring.read(id, io.fileno, buffer, offset, buffer.size - offset) }
    end

    # Writes the buffer, at least length bytes of it (one write if length is
    # 0); the bytes written, or -errno.
    def io_write(io, buffer, length)
      transfer(io, buffer, length, POLLOUT) { |id, offset| @ring.write(id, io.fileno, buffer, offset, buffer.size - offset) }
    end

    # ---- time ---------------------------------------------------------------

    def kernel_sleep(duration = nil)
      return block(:sleep, nil) unless duration
      submit { |id| @ring.timeout(id, (duration * 1e9).round) }
      nil
    end

    # ---- Mutex, Queue, ConditionVariable --------------------------------------

    # Suspends the fiber until #unblock (true), or until timeout seconds (false).
    def block(_blocker, timeout = nil)
      fiber = Fiber.current
      @timeouts[fiber] = submit_only { |id| @ring.timeout(id, (timeout * 1e9).round) } if timeout
      suspend(fiber)
    end

    def unblock(_blocker, fiber)
      @lock.synchronize { @ready << fiber }
      @wake.write_nonblock(".", exception: false) unless Thread.current == @thread
    end

    def process_wait(pid, flags)
      Thread.new { Process::Status.wait(pid, flags) }.value
    end

    # Lets every other ready fiber run, then goes on (a Task's yield).
    def pass
      @lock.synchronize { @ready << Fiber.current }
      suspend(Fiber.current)
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

    def next_id = (@ids += 1)

    def suspend(fiber)
      @blocking[fiber] = true
      Fiber.yield
    ensure
      @blocking.delete(fiber)
    end

    # Submits an operation for the current fiber and suspends it until the
    # operation completes; its result.
    def submit
      id = next_id
      yield id
      @waiting[id] = Fiber.current
      Fiber.yield
    end

    # Submits an operation nobody waits for (a block's timeout); its id.
    def submit_only
      id = next_id
      yield id
      @waiting[id] = :timeout
      id
    end

    # A read or write until length bytes moved: a descriptor that would block
    # (non-blocking, as Ruby opens them) is polled first, then tried again.
    def transfer(io, buffer, length, events)
      done = 0
      loop do
        result = submit { |id| yield id, done }
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
      if id == WAKEUP
        @wakeup.read_nonblock(4096, exception: false)
        @ring.poll(WAKEUP, @wakeup.fileno, POLLIN)
        return
      end
      waiter = @waiting.delete(id)
      if waiter == :timeout
        fiber = @timeouts.key(id)
        return unless fiber # unblocked before its time: nothing to do
        @timeouts.delete(fiber)
        fiber.resume(false) if @blocking.delete(fiber)
      elsif waiter&.alive?
        waiter.resume(result)
      end
    end

    def resume_ready
      loop do
        fiber = @lock.synchronize { @ready.shift }
        break unless fiber
        next unless @blocking.delete(fiber) # not waiting for this any more
        timeout = @timeouts.delete(fiber)
        @ring.cancel(next_id, timeout) if timeout
        fiber.resume(true)
      end
    end
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
