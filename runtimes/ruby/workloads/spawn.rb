require_relative "../lib/concurrent_procs"

module Workloads
  # Start `tasks` units at once; unit i sleeps `delay_ms` (if > 0) and returns
  # i; the caller awaits them all and sums what they returned. Every mechanism
  # starts every unit before it awaits the first, so the sleeps overlap.
  # Memory is this workload's figure: the units count themselves on the run's
  # counters (threads, fibers), or take two stamps of their own (ractors,
  # returned with the value: an Array of three per unit), or are stamped by
  # Kit.fork (processes).
  module Spawn
    def self.thread(tasks:, delay_ms:)
      units = Kit.units
      { sum: Array.new(tasks) { |i| Thread.new { units.unit { work(i, delay_ms) } } }.sum(&:value) }
    end

    # Kernel#sleep in a task goes to the scheduler: the task waits on the reactor's timers.
    def self.fiber(tasks:, delay_ms:)
      units = Kit.units
      Kit.sync do |task|
        { sum: Array.new(tasks) { |i| task.async { units.unit { work(i, delay_ms) } } }.sum(&:wait) }
      end
    end

    # A concurrent proc's evaluations, detached (Kernel#concurrently does so,
    # and fails on Ruby 3 as concurrent_proc does): Concurrently's `wait` in
    # place of sleep, which would block the thread and every evaluation on it.
    def self.concurrently(tasks:, delay_ms:)
      units = Kit.units
      task = ConcurrentProcs.new { |i| units.unit { wait(delay_ms / 1000.0) if delay_ms > 0; i } }
      { sum: Array.new(tasks) { |i| task.call_detached(i) }.sum(&:await_result) }
    end

    # Each child writes its value to a shared pipe (8 bytes: one atomic write).
    # UringMachine's pure API (lib/um.rb): a UM#spin fiber per task, asleep
    # in UM#sleep (a timeout on the ring), awaited with UM#join.
    def self.um(tasks:, delay_ms:)
      units = Kit.units
      machine = Concbench::Um.machine
      seconds = delay_ms / 1000.0
      fibers = Array.new(tasks) { |i| machine.spin { units.unit { machine.sleep(seconds) if delay_ms > 0; i } } }
      { sum: Concbench::Um.join(machine, fibers).sum }
    end

    def self.process(tasks:, delay_ms:)
      results, report = IO.pipe
      pids = Array.new(tasks) { |i| Kit.fork { report.write([work(i, delay_ms)].pack("Q<")) } }
      report.close
      sum = results.read.unpack("Q<*").sum # EOF once every child has exited
      results.close
      Kit.wait(pids)
      { sum: sum }
    end

    def self.ractor(tasks:, delay_ms:)
      ractors = Array.new(tasks) { |i| Ractor.new(i, delay_ms) { |j, ms| [Kit.stamp, Spawn.work(j, ms), Kit.stamp] } }
      sum = 0
      Kit.units.spans(ractors.map { |r| start, value, stop = r.take; sum += value; [start, stop] })
      { sum: sum }
    end

    def self.work(i, delay_ms)
      sleep(delay_ms / 1000.0) if delay_ms > 0
      i
    end
  end
end
