require_relative "../lib/locks"

module Workloads
  # Per group one lock and one counter; each of `workers` units, in its
  # iteration i of `iterations`: make the subject, PREFIX followed by i (a
  # new string each time, so that no engine answers from an earlier match),
  # lock, read the counter, match PATTERN against the subject, write back the
  # counter read plus the length of the capture (597 plus i's digits),
  # unlock. PATTERN is a regexp literal: compiled once, when this file is
  # loaded, nothing per run.
  # `contended` counts the acquisitions that found the lock held: a failed
  # try_lock (flock with LOCK_NB for processes) before the blocking lock,
  # counted by each unit in a local of its own and summed after the run.
  module MutexCpu
    PREFIX = ("foobar" * 100).freeze
    PATTERN = /foo(.+)$/
    Group = Struct.new(:mutex, :counter)

    # The groups are made before the timing, and the counters summed after.
    def self.thread(groups:, workers:, iterations:)
      all = Array.new(groups) { Group.new(Thread::Mutex.new, 0) }
      units = Kit.units
      contended = yield proc {
        all.flat_map { |g| Array.new(workers) { Thread.new { units.unit { work(g, iterations) } } } }.sum(&:value)
      }
      Kit.evidence(contended: contended)
      { sum: all.sum(&:counter) }
    end

    # The stock Mutex: a task that finds it held waits in the scheduler.
    def self.fiber(groups:, workers:, iterations:, &timed) = fibers(Thread::Mutex, groups, workers, iterations, timed)

    # The direct path: the ring's own lock (scheduler.rb), whose waiters are
    # fibers parked in C, as UringMachine's pure API's mutex is.
    def self.uring_direct(groups:, workers:, iterations:, &timed)
      fibers(Concbench::Core::Mutex, groups, workers, iterations, timed)
    end

    # A task per unit under Kit.sync, each group's lock a `lock`.
    def self.fibers(lock, groups, workers, iterations, timed)
      all = Array.new(groups) { Group.new(lock.new, 0) }
      units = Kit.units
      contended = timed.call(proc {
        Kit.sync do |task|
          all.flat_map { |g| Array.new(workers) { task.async { units.unit { work(g, iterations) } } } }.sum(&:wait)
        end
      })
      Kit.evidence(contended: contended)
      { sum: all.sum(&:counter) }
    end

    # UringMachine's pure API (lib/um.rb), as its benchmark script uses it: a
    # UM#spin fiber per unit, each group's lock a UM::Mutex taken with
    # UM#synchronize (locks.rb: UmLock).
    def self.um(groups:, workers:, iterations:)
      all = Array.new(groups) { Group.new(Locks::UmLock.new, 0) }
      units = Kit.units
      contended = yield proc {
        machine = Concbench::Um.machine
        locks = Locks::OnMachine.new(machine)
        fibers = all.flat_map { |g| Array.new(workers) { machine.spin { units.unit { work(g, iterations, locks) } } } }
        Concbench::Um.join(machine, fibers).sum
      }
      Kit.evidence(contended: contended)
      { sum: all.sum(&:counter) }
    end

    # Processes share no memory: a group's lock is an flock on its lock file
    # (locks.rb), which holds the counter (8 bytes, pread and
    # pwritten under the lock). The files are made before the timing, and the
    # counters read after.
    def self.process(groups:, workers:, iterations:)
      locks = Array.new(groups) { |i| File.join(Kit.scratch, "mutex-cpu-#{i}.lock") }
      locks.each { |path| File.binwrite(path, [0].pack("Q<")) }
      contended = yield proc {
        Locks.flock_workers(locks, workers, iterations, File::RDWR, before_lock: method(:subject)) do |lock, text|
          counter = lock.pread(8, 0).unpack1("Q<")
          lock.pwrite([counter + capture_size(text)].pack("Q<"), 0)
        end
      }
      sum = locks.sum { |path| File.binread(path).unpack1("Q<") }
      locks.each { |path| File.delete(path) }
      Kit.evidence(contended: contended)
      { sum: sum }
    end

    # One worker's iterations, each holding the group's lock with `locks`
    # (Locks, or the um row's Locks::OnMachine); returns how many found it
    # held.
    def self.work(group, iterations, locks = Locks)
      mutex = group.mutex
      waited = 0
      iterations.times do |i|
        text = subject(i)
        waited += locks.hold(mutex) do
          counter = group.counter
          group.counter = counter + capture_size(text)
        end
      end
      waited
    end

    def self.subject(iteration) = "#{PREFIX}#{iteration}"

    def self.capture_size(subject) = PATTERN.match(subject)[1].size
  end
end
