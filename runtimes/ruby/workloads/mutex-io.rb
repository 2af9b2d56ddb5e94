module Workloads
  # Per group one lock and one file; each of `workers` units writes `iterations`
  # blocks of `size` bytes to it, each a write(2) made holding the lock.
  module MutexIo
    Group = Struct.new(:mutex, :file)

    def self.thread(groups:, workers:, iterations:, size:)
      paths, block = paths(groups), "x" * size
      all = paths.map { |path| Group.new(Thread::Mutex.new, open(path)) }
      all.flat_map { |g| Array.new(workers) { Thread.new { work(g, iterations, block) } } }.each(&:join)
      all.each { |g| g.file.close }
      [{ bytes: total(paths) }, groups * workers]
    end

    def self.fiber(groups:, workers:, iterations:, size:)
      paths, block = paths(groups), "x" * size
      Sync do |task|
        all = paths.map { |path| Group.new(Thread::Mutex.new, open(path)) }
        all.flat_map { |g| Array.new(workers) { task.async { work(g, iterations, block) } } }.each(&:wait)
        all.each { |g| g.file.close }
      end
      [{ bytes: total(paths) }, groups * workers]
    end

    def self.process(groups:, workers:, iterations:, size:)
      paths, block = paths(groups), "x" * size
      pids = paths.flat_map do |path|
        Array.new(workers) do
          Kit.fork do
            # Opened by each worker: flock excludes other open file descriptions,
            # not an inherited one; append mode because each has its own offset.
            File.open(path, "a") do |file|
              file.sync = true
              iterations.times do
                file.flock(File::LOCK_EX)
                file.write(block)
                file.flock(File::LOCK_UN)
              end
            end
          end
        end
      end
      Kit.wait(pids)
      [{ bytes: total(paths) }, groups * workers]
    end

    def self.work(group, iterations, block)
      iterations.times { group.mutex.synchronize { group.file.write(block) } }
    end

    def self.paths(groups) = Array.new(groups) { |i| File.join(Kit.scratch, "mutex-io-#{i}") }

    def self.open(path) = File.open(path, "w").tap { |file| file.sync = true }

    # Runs repeat in one process: each must start without files.
    def self.total(paths) = paths.sum { |path| File.size(path) }.tap { paths.each { |path| File.delete(path) } }
  end
end
