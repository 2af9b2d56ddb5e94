require_relative "../lib/concurrent_procs"

module Workloads
  # Create `futures` futures, all before awaiting any; future i computes
  # (i * i) mod 1000. Then await each and sum the values. The units are the
  # futures' threads or fibers; for the libraries' futures, which run on a
  # pool of theirs that outlives the run, the pool's threads that ran them.
  module Future
    # The floor: the values computed in place by the caller.
    def self.none(futures:) = { sum: futures.times.sum { |i| value(i) } }

    # A thread is Ruby's own future: Thread#value awaits it.
    def self.thread(futures:)
      units = Kit.units
      { sum: Array.new(futures) { |i| Thread.new { units.unit { value(i) } } }.sum(&:value) }
    end

    def self.fiber(futures:)
      units = Kit.units
      Kit.sync { |task| { sum: Array.new(futures) { |i| task.async { units.unit { value(i) } } }.sum(&:wait) } }
    end

    # An evaluation of a concurrent proc, detached, is Concurrently's future
    # (Kernel#concurrently returns one); await_result awaits it.
    def self.concurrently(futures:)
      units = Kit.units
      future = ConcurrentProcs.new { |i| units.unit { value(i) } }
      { sum: Array.new(futures) { |i| future.call_detached(i) }.sum(&:await_result) }
    end

    # UringMachine's pure API (lib/um.rb): a UM#spin fiber per future, their
    # values awaited with UM#join.
    def self.um(futures:)
      units = Kit.units
      machine = Concbench::Um.machine
      { sum: Concbench::Um.join(machine, Array.new(futures) { |i| machine.spin { units.unit { value(i) } } }).sum }
    end

    # A block future runs on a thread of Celluloid's internal pool (it keeps up
    # to 16 idle threads for reuse).
    def self.celluloid(futures:)
      units = Kit.units
      { sum: Array.new(futures) { |i| ::Celluloid::Future.new { units.task { value(i) } } }.sum(&:value) }
    end

    # A Promises future runs on concurrent-ruby's global I/O pool, its default.
    def self.concurrent(futures:)
      units = Kit.units
      { sum: Array.new(futures) { |i| Concurrent::Promises.future(i) { |j| units.task { value(j) } } }.sum(&:value!) }
    end

    def self.value(i) = i * i % 1000
  end
end
