module Workloads
  # Per group one lock and one counter; each of `workers` units enters the
  # critical section `iterations` times to add the length of a regexp capture.
  module MutexCpu
    TEXT = ("foobar" * 100).freeze
    Group = Struct.new(:mutex, :counter)

    def self.thread(groups:, workers:, iterations:)
      all = Array.new(groups) { Group.new(Thread::Mutex.new, 0) }
      all.flat_map { |g| Array.new(workers) { Thread.new { work(g, iterations) } } }.each(&:join)
      [{ sum: all.sum(&:counter) }, groups * workers]
    end

    def self.fiber(groups:, workers:, iterations:)
      Sync do |task|
        all = Array.new(groups) { Group.new(Thread::Mutex.new, 0) }
        all.flat_map { |g| Array.new(workers) { task.async { work(g, iterations) } } }.each(&:wait)
        [{ sum: all.sum(&:counter) }, groups * workers]
      end
    end

    # Processes share no memory: each worker adds to its own subtotal inside the lock and reports it through a pipe.
    def self.process(groups:, workers:, iterations:)
      results, report = IO.pipe
      locks = Array.new(groups) { |i| File.join(Kit.scratch, "mutex-cpu-#{i}.lock") }
      pids = locks.flat_map do |path|
        Array.new(workers) do
          Kit.fork do
            # Opened by each worker: flock excludes other open file descriptions, not an inherited one.
            File.open(path, File::RDWR | File::CREAT) do |lock|
              subtotal = 0
              iterations.times do
                lock.flock(File::LOCK_EX)
                subtotal += capture_size
                lock.flock(File::LOCK_UN)
              end
              report.write([subtotal].pack("Q<"))
            end
          end
        end
      end
      report.close
      sum = results.read.unpack("Q<*").sum # EOF once every worker has exited
      results.close
      Kit.wait(pids)
      locks.each { |path| File.delete(path) }
      [{ sum: sum }, groups * workers]
    end

    def self.work(group, iterations)
      iterations.times { group.mutex.synchronize { group.counter += capture_size } }
    end

    def self.capture_size = /foo(.+)$/.match(TEXT)[1].size
  end
end
