module Workloads
  # Create `futures` futures, all before awaiting any; future i computes
  # (i * i) mod 1000. Then await each and sum the values. The units are the
  # futures.
  module Future
    # The floor: the values computed in place by the caller.
    def self.none(futures:) = [{ sum: futures.times.sum { |i| value(i) } }, 0]

    # A thread is Ruby's own future: Thread#value awaits it.
    def self.thread(futures:) = [{ sum: Array.new(futures) { |i| Thread.new { value(i) } }.sum(&:value) }, futures]

    def self.fiber(futures:)
      Sync { |task| [{ sum: Array.new(futures) { |i| task.async { value(i) } }.sum(&:wait) }, futures] }
    end

    # A block future runs on a thread of Celluloid's internal pool (it keeps up
    # to 16 idle threads for reuse).
    def self.celluloid(futures:)
      [{ sum: Array.new(futures) { |i| ::Celluloid::Future.new { value(i) } }.sum(&:value) }, futures]
    end

    # A Promises future runs on concurrent-ruby's global I/O pool, its default.
    def self.concurrent(futures:)
      [{ sum: Array.new(futures) { |i| Concurrent::Promises.future(i) { |j| value(j) } }.sum(&:value!) }, futures]
    end

    def self.value(i) = i * i % 1000
  end
end
