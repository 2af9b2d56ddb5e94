require_relative "../lib/concurrent_procs"

module Workloads
  # One operation: the measured unit yields to its scheduler and is resumed
  # (the seed's `wait 0`); it counts its own resumptions. `partners` more
  # units yield in a loop beside it, on the same scheduler, until the time box
  # is over; then they are stopped and awaited (timed, as the end of the run).
  #
  # `turn` is the spec's turn counter: every unit adds one each time it runs
  # (raw_fiber's caller too, the scheduler there; the thread VM's and async's
  # schedulers cannot be made to); a yield after which it has moved is
  # `switched`. Only the running unit touches it: fibers switch only where
  # they yield, and `turn += 1` has no interrupt check between its read and
  # its write (getlocal, opt_plus, setlocal), so under the GVL no thread runs
  # in between.
  #
  # Without a GVL (JRuby) the thread row's partners would run beside the
  # measured thread on the other core, moving `turn` whether its yield gave
  # way or not: `switched` would count parallelism, not switches. So there,
  # as c/pthread and go/goroutine do, the row runs on one CPU (OneCpu): a
  # partner then moves `turn` only when the scheduler switches to it. A
  # partner preempted between its read and write of `turn` may lose an
  # increment: `switched` can only come out low, never high (a yield with no
  # switch leaves `turn` as it was). CRuby pays nothing: it needs no pinning.
  module Yield
    unless Kit::GVL
      require "ffi"

      # Pins the calling thread, and the threads it starts (they inherit its
      # affinity), to the CPU it is on, for the block.
      module OneCpu
        extend FFI::Library
        ffi_lib FFI::Library::LIBC
        attach_function :sched_getcpu, [], :int
        attach_function :sched_getaffinity, %i[int size_t pointer], :int
        attach_function :sched_setaffinity, %i[int size_t pointer], :int
        MASK = 128 # bytes: a cpu_set_t (1024 CPUs)

        def self.pin
          was = FFI::MemoryPointer.new(MASK)
          one = FFI::MemoryPointer.new(MASK)
          raise SystemCallError.new("sched_getaffinity", FFI.errno) unless sched_getaffinity(0, MASK, was).zero?
          cpu = sched_getcpu
          one.put_uint8(cpu / 8, 1 << (cpu % 8))
          raise SystemCallError.new("sched_setaffinity", FFI.errno) unless sched_setaffinity(0, MASK, one).zero?
          begin
            yield
          ensure
            sched_setaffinity(0, MASK, was)
          end
        end
      end
    end

    # The units are fibers; their scheduler is the caller, which resumes the
    # measured unit, then each partner, once per operation.
    def self.raw_fiber(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      unit = Fiber.new do
        units.unit do
          loop do
            seen = turn += 1
            Fiber.yield
            break if stop
            switched += 1 if turn != seen
            resumed += 1
          end
        end
      end
      others = Array.new(partners) { Fiber.new { units.unit { until stop do turn += 1; Fiber.yield end } } }
      unit.resume # to its first yield
      others.each(&:resume)
      if others.empty?
        yield proc { turn += 1; unit.resume }
      else
        yield proc { turn += 1; unit.resume; others.each(&:resume) }
      end
      stop = true
      [unit, *others].each(&:resume) # to their ends
      Kit.evidence(switched: switched)
      { count: resumed }
    end

    # The measured unit is the thread running the loop; its scheduler is the
    # VM's, and the partners are threads looping Thread.pass. Without a GVL,
    # on one CPU (see above).
    def self.thread(partners:, **, &run)
      return OneCpu.pin { threads(partners, &run) } unless Kit::GVL || partners.zero?

      threads(partners, &run)
    end

    def self.threads(partners)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      others = Array.new(partners) { Thread.new { units.unit { until stop do turn += 1; Thread.pass end } } }
      units.unit do
        yield proc {
          seen = turn += 1
          Thread.pass
          switched += 1 if turn != seen
          resumed += 1
        }
        stop = true
        others.each(&:join)
      end
      Kit.evidence(switched: switched)
      { count: resumed }
    end
    private_class_method :threads

    # UringMachine's pure API (lib/um.rb): the measured unit is the caller,
    # which UringMachine runs on as on any fiber of the thread (it has no
    # loop of its own), yielding with UM#snooze; the partners are UM#spin
    # fibers looping UM#snooze.
    def self.um(partners:, **)
      units = Kit.units
      machine = Concbench::Um.machine
      resumed = switched = turn = 0
      stop = false
      others = Array.new(partners) { machine.spin { units.unit { until stop do turn += 1; machine.snooze end } } }
      units.unit do
        yield proc {
          seen = turn += 1
          machine.snooze
          switched += 1 if turn != seen
          resumed += 1
        }
        stop = true
        Concbench::Um.join(machine, others)
      end
      # As the fiber row's: with no partner, nothing of ours sees the switch.
      Kit.evidence(switched: partners.zero? ? nil : switched)
      { count: resumed }
    end

    # The measured unit is the task running the loop; its scheduler is the
    # async reactor, and the partners are tasks looping task.yield.
    def self.fiber(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      Kit.sync do |task|
        others = Array.new(partners) { task.async { |t| units.unit { until stop do turn += 1; t.yield end } } }
        units.unit do
          yield proc {
            seen = turn += 1
            task.yield
            switched += 1 if turn != seen
            resumed += 1
          }
          stop = true
          others.each(&:wait)
        end
      end
      # A lone task's yield goes through the reactor's loop and back, but
      # nothing of ours runs there to see it: with no partner, not observable.
      Kit.evidence(switched: partners.zero? ? nil : switched)
      { count: resumed }
    end

    # The measured unit is the caller, the thread's root fiber, as in
    # Concurrently's report: its `wait 0` suspends it to Concurrently's event
    # loop, which resumes it on its next turn. The partners are a concurrent
    # proc's evaluations, detached, looping `wait 0`.
    def self.concurrently(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      partner = ConcurrentProcs.new { units.unit { until stop do turn += 1; wait 0 end } }
      others = Array.new(partners) { partner.call_detached }
      units.unit do
        yield proc {
          seen = turn += 1
          wait 0
          switched += 1 if turn != seen
          resumed += 1
        }
        stop = true
        others.each(&:await_result)
      end
      # As in the fiber row: the event loop's turn is not ours to count.
      Kit.evidence(switched: partners.zero? ? nil : switched)
      { count: resumed }
    end
  end
end
