require_relative "locks"

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

    def self.thread(groups:, workers:, iterations:, size:)
      paths, block = create(groups), "x" * size
      all = paths.map { |path| Group.new(Thread::Mutex.new, File.open(path, File::WRONLY), 0) }
      units = Kit.units
      contended = yield proc {
        all.flat_map { |g| Array.new(workers) { Thread.new { units.unit { work(g, iterations, block) } } } }.sum(&:value)
      }
      all.each { |g| g.file.close }
      Kit.evidence(contended: contended)
      { bytes: total(paths) }
    end

    # The stock Mutex and IO#pwrite. async 1.30's scheduler has no io_write
    # hook (and Ruby 3.1 none for pwrite): a write blocks the thread and never
    # yields, so no task ever finds the lock held, and each task runs its
    # whole loop before the next starts (peak_live 1): runtime.toml's note.
    def self.fiber(groups:, workers:, iterations:, size:)
      paths, block = create(groups), "x" * size
      all = paths.map { |path| Group.new(Thread::Mutex.new, File.open(path, File::WRONLY), 0) }
      units = Kit.units
      contended = yield proc {
        Kit.sync do |task|
          all.flat_map { |g| Array.new(workers) { task.async { units.unit { work(g, iterations, block) } } } }.sum(&:wait)
        end
      }
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

    # One worker's writes; returns how many found the lock held.
    def self.work(group, iterations, block)
      mutex, file, size = group.mutex, group.file, block.bytesize
      waited = 0
      iterations.times do
        waited += Locks.hold(mutex) do
          at = group.end
          file.pwrite(block, at)
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

    # The io_uring scheduler's row runs the fiber row's code (Kit.sync).
    singleton_class.alias_method :uring, :fiber
  end
end
