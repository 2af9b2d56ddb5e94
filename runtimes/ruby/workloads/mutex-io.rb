require_relative "../lib/locks"

module Workloads
  # Per group one lock, one file and the file's end, shared by its units;
  # each of `workers` units, `iterations` times: lock, read the end, pwrite
  # `size` bytes at it (one positioned write(2), no user-space buffer), store
  # the end plus `size`, unlock. The files are made before the timing; their
  # sizes are read, and they are removed, after it. `contended` counts the
  # acquisitions that found the lock held: a failed try_lock (flock with
  # LOCK_NB for processes) before the blocking lock, counted by each unit in
  # a local of its own and summed after the run.
  module MutexIo
    Group = Struct.new(:mutex, :file, :end)
    # Ruby 3.4.5 calls UM::FiberScheduler's io_pwrite hook without the GVL,
    # where it switches fibers and hung (runtime.toml's n/a).
    NOT_FIBER_ROWS = %w[um_fs].freeze

    def self.thread(groups:, workers:, iterations:, size:, &timed)
      block = "x" * size
      locked_files(groups, timed) do |all, units|
        all.flat_map do |g|
          Array.new(workers) { Thread.new { units.unit { work(g, iterations, size) { |file, at| file.pwrite(block, at) } } } }
        end.sum(&:value)
      end
    end

    # The stock Mutex and IO#pwrite. async 1.30's scheduler has no io_write
    # hook (and Ruby 3.1 none for pwrite): a write blocks the thread and never
    # yields, so no task ever finds the lock held, and each task runs its
    # whole loop before the next starts (peak_live 1): runtime.toml's note.
    def self.fiber(groups:, workers:, iterations:, size:, &timed)
      block = "x" * size
      fibers(groups, workers, iterations, size, timed) { |file, at| file.pwrite(block, at) }
    end

    # The direct path: the ring's own lock and positioned write
    # (scheduler.rb), so a unit yields while the kernel writes, holding the
    # lock, and waits for the lock parked in C, as UringMachine's pure API.
    def self.uring_direct(groups:, workers:, iterations:, size:, &timed)
      block = IO::Buffer.for("x" * size)
      fibers(groups, workers, iterations, size, timed, Concbench::Core::Mutex) do |file, at|
        Fiber.scheduler.write(file.fileno, block, size, at)
      end
    end

    # UringMachine's pure API (lib/um.rb), as its benchmark script uses it: a
    # UM#spin fiber per unit, each group's lock a UM::Mutex taken with
    # UM#synchronize (locks.rb: UmLock), the write UM#write at the file
    # offset, so a unit yields while the kernel writes, holding the lock.
    def self.um(groups:, workers:, iterations:, size:, &timed)
      block = "x" * size
      locked_files(groups, timed, Locks::UmLock) do |all, units|
        machine = Concbench::Um.machine
        locks = Locks::OnMachine.new(machine)
        fibers = all.flat_map do |g|
          Array.new(workers) do
            machine.spin { units.unit { work(g, iterations, size, locks) { |file, at| machine.write(file.fileno, block, size, at) } } }
          end
        end
        Concbench::Um.join(machine, fibers).sum
      end
    end

    # A fiber per unit under Kit.sync, writing with the block.
    def self.fibers(groups, workers, iterations, size, timed, lock = Thread::Mutex, &write)
      locked_files(groups, timed, lock) do |all, units|
        Kit.sync do |task|
          all.flat_map { |g| Array.new(workers) { task.async { units.unit { work(g, iterations, size, &write) } } } }.sum(&:wait)
        end
      end
    end

    # Each group's lock (a `lock`) and open file; the block is the timed
    # work, given the groups and the run's units, and returns the contended
    # count.
    def self.locked_files(groups, timed, lock = Thread::Mutex)
      paths = create(groups)
      all = paths.map { |path| Group.new(lock.new, File.open(path, File::WRONLY), 0) }
      units = Kit.units
      contended = timed.call(proc { yield all, units })
      all.each { |g| g.file.close }
      Kit.evidence(contended: contended)
      { bytes: total(paths) }
    end

    # The lock is an flock on the group's file (locks.rb), and the
    # end is the file's size, read under it (fstat).
    def self.process(groups:, workers:, iterations:, size:)
      paths, block = create(groups), "x" * size
      contended = yield proc {
        Locks.flock_workers(paths, workers, iterations, File::WRONLY) { |file| file.pwrite(block, file.size) }
      }
      Kit.evidence(contended: contended)
      { bytes: total(paths) }
    end

    # One worker's writes of `size` bytes, each by the block at the position
    # it is given, holding the group's lock with `locks` (Locks, or the um
    # row's Locks::OnMachine); returns how many found it held.
    def self.work(group, iterations, size, locks = Locks)
      mutex, file = group.mutex, group.file
      waited = 0
      iterations.times do
        waited += locks.hold(mutex) do
          at = group.end
          yield file, at
          group.end = at + size
        end
      end
      waited
    end

    # Empty files, made before the timing.
    def self.create(groups)
      Array.new(groups) { |i| File.join(Kit.scratch, "mutex-io-#{i}").tap { |path| File.write(path, "") } }
    end

    # After the timing: the files' sizes, and the files removed (runs repeat in one process).
    def self.total(paths) = paths.sum { |path| File.size(path) }.tap { paths.each { |path| File.delete(path) } }
  end
end
