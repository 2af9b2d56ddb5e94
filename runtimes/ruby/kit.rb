# The Ruby kit: one trial per process, as docs/protocol.md says. It reads the
# request on stdin, runs Workloads::<Id>.<mechanism>(**params) warmup + runs
# times and prints the response as the last line of stdout, its only one
# but where a server's workload first says where it listens (Kit.listening).
# This file runs what is inside the clocks (below, and why); the rest of the
# kit is protocol.rb, where the classes and constants this header names are
# (Units, AtomicUnits, LIBRARIES, SCHEDULERS, FIBER_ROWS, COUNTING_COST).
#
# The workload API
# ================
# A mechanism is a module method of the workload, named after it, taking the
# spec's parameters as keywords. It returns the run's `result` (a Hash of
# integers).
#
# Fixed workloads. The mechanism does the whole job of one run and the kit
# times the whole call, unless the mechanism hands the kit its work:
#     yield proc { ...the work... }
# The kit then times that call only, and returns its value from the yield.
# What the mechanism does before (make the files the work writes into, the
# locks it takes) and after (read the files' sizes, remove them) is untimed:
# the protocol's "untimed steps around a run".
#
# Rate workloads. The mechanism sets up (untimed), then yields its operation
# (a callable) and optionally what ends a batch; the kit runs batches of
# `batch` operations until `seconds` have passed; the mechanism then awaits
# what is outstanding (timed) and returns the result. Yielding lets a
# mechanism keep the kit's loop inside its own context (a fiber scheduler's
# reactor, say) while its setup stays outside the timing.
#
# A workload module may define prepare(**params): the kit calls it once,
# before the first run, for inputs that the spec makes before the timing (a
# table to look up, say); it is not timed.
#
# Units and peak_live (protocol: "Evidence"). The kit counts the units, on
# the run's Kit::Units (Kit.units, a new one for each run):
#   units.start / units.finish   the first and the last act of a unit's body
#                                (units.unit { body } does both); `units` is
#                                how many started, `peak_live` the most alive
#                                at once.
#   Kit.stamp                    where a unit cannot reach Kit.units (a
#                                ractor cannot touch the kit's state): it
#                                takes a stamp as it starts and as it ends,
#                                returns both with its result, and the
#                                mechanism hands them over with
#                                units.spans([[start, stop], ...]).
#   Kit.fork                     stamps its child's body itself (in the
#                                run's file of children, read after the run).
#   units.counted(started:, peak:, live: 0)  figures counted elsewhere: by
#                                a library (a pool's own count of the threads
#                                it started, and the most alive at once), or
#                                by the mechanism in locals of its own, with
#                                #start's and #finish's instructions inlined
#                                (a unit made per operation: lib/invocation.rb).
#   units.task { body }          a task run on a thread of a library's pool
#                                that outlives the run (concurrent-ruby's
#                                global pools, Celluloid's internal one): the
#                                units are the pool's threads that ran the
#                                run's tasks, each alive while it runs one.
# start and finish touch one counter and a peak that every unit of the run
# shares, but take no lock: their instructions (opt_plus, opt_newarray_max,
# setinstancevariable; see Units#start) have no interrupt check between the
# read and the write, so under the GVL no other thread runs in between and
# nothing waits for them; fibers switch only where they block. Without a GVL
# (JRuby) they are the JVM's atomics instead (AtomicUnits). Spans are swept,
# and peak_live computed, after the clocks stop. A mechanism that starts no
# unit (none) touches nothing: units = peak_live = 0. The caller's thread is
# the unit where it does the work itself with the units' means (a rate loop
# that yields, a thread polling descriptors): it starts before it hands the
# kit its operation and finishes after. Every unit that started must have
# finished when the mechanism returns, or the run fails.
# What counting costs where it weighs most (a unit per operation, invoke's
# raw_fiber cell): see COUNTING_COST.
#
# Evidence: Kit.evidence(name: count, ...) reports the counts the workload's
# spec declares under [evidence]; nil where the mechanism cannot observe the
# count (say why there). Each unit counts its events in a variable of its
# own; the mechanism sums them after it has awaited the units.
#
# Servers (echo). The mechanism opens its listener before it hands the kit
# its work, says where with Kit.listening(address), and counts the
# connections it holds on a Kit.counter, as Kit.units counts units.
#
# A mechanism's library (LIBRARIES) is loaded before the workload's file and
# the first run, and only for that mechanism's trials (loading celluloid sets
# up its actor system and its shutdown at exit; concurrent-ruby starts a
# timer thread): a workload file defines the classes that need the library
# (actors) only if it loaded (`if Kit.loaded?("celluloid")`; a require that
# failed may have left part of the library's modules defined, as celluloid's
# on Ruby 3.4 does). A library that patches Ruby's own classes (Concurrently:
# Kernel, IO and Thread) is not among them, since a list request loads them
# all: its mechanism's runs require it (lib/concurrent_procs.rb).
#
# The fiber rows share their code: a workload's fiber mechanism runs its
# units under Kit.sync { |task| ... } (task.async { } and its wait,
# task.yield), which is async's Sync for fiber, concbench's own
# scheduler's (scheduler.rb: SCHEDULERS) for uring and epoll, and
# UringMachine's (lib/um.rb) for um_fs, which run the fiber method
# (FIBER_ROWS).
#
# A request of kind "floor" loads no workload and no library: the answer is
# the kit's memory floor (protocol: "The kit's floor").

# The main script is only what runs inside the clocks; the rest of the kit is
# protocol.rb. JRuby compiles a main script whole to JVM bytecode before it
# runs it, as it compiles any program's own loop, and runs a file it requires
# in its interpreter, compiling a method or block once it has been called 50
# times: the rate loop below, called once a run, is compiled before the first
# run, and the kit's 500 lines outside the clocks cost JRuby no compile at
# start.
require_relative "protocol"

module Kit
  class << self
    private

    # The clocks run around the call, or around the work the mechanism hands
    # over (see the header): the mechanism's steps before and after it are
    # untimed.
    def measure(impl, mechanism, params)
      begin_run
      timed = nil
      start = clocks
      result = impl.public_send(entry(impl, mechanism), **params) do |work|
        raise "the mechanism handed the kit its work twice" if timed
        start = clocks
        value = work.call
        timed = since(start)
        value
      end
      timed ||= since(start)
      timed.merge(result: result)
    end

    # The timed region starts when the mechanism yields its operation and ends
    # when it returns. The loop reads the clock once per batch and does nothing
    # else, so that it costs almost nothing next to a bare hand-written loop
    # (fidelity.rb measures the difference).
    def measure_rate(impl, mechanism, params, seconds)
      begin_run
      batch = params.fetch(:batch)
      start = nil
      batches = 0
      result = impl.public_send(entry(impl, mechanism), **params) do |operation, end_of_batch = nil|
        start = clocks
        deadline = start.wall + ns(seconds)
        begin
          i = 0
          while i < batch
            operation.call # no argument: passing one would cost 7% of a plain call
            i += 1
          end
          end_of_batch&.call
          batches += 1
        end while Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) < deadline
      end
      raise "the mechanism did not run the timed loop" unless start
      since(start).merge(result: result, ops: batches * batch)
    end

    Clocks = Struct.new(:wall, :cpu)

    # The CPU clock (CPU_CLOCK, protocol.rb) is read inside the wall clock's
    # readings, at both ends, so that a run's CPU time is what the process
    # used within its wall time, which a trial confined to k CPUs cannot
    # exceed k times. Read outside them, as they were, JRuby's CPU time took
    # in whatever its JIT's threads ran while the kit went from one reading
    # to the other, on one CPU 0.3 to 7 ms at a run's start and up to 115 ms
    # at its end (30 runs of a loop under taskset -c 0): such runs showed up
    # to 37 ms more CPU time than wall time, and confined trials failed. The
    # wall time now holds the CPU readings, on CRuby two getrusage calls at
    # each end, a few microseconds a run.
    def clocks
      wall = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      Clocks.new(wall, CPU_CLOCK.times)
    end

    def since(start)
      cpu = CPU_CLOCK.times
      wall = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      { wall_ns: wall - start.wall,
        user_ns: ns(cpu.utime + cpu.cutime - start.cpu.utime - start.cpu.cutime),
        sys_ns: ns(cpu.stime + cpu.cstime - start.cpu.stime - start.cpu.cstime) }
    end

    def ns(seconds) = (seconds * 1e9).round
  end
end

if $PROGRAM_NAME == __FILE__
  ARGV.first == "--train" ? Kit.train(ARGV.fetch(1)) : Kit.main(ARGV.fetch(0))
end
