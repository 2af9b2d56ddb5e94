module Workloads
  # The locking of mutex-cpu's and mutex-io's cells, with the acquisitions
  # that found the lock held (contended) counted, each unit in its own local.
  module Locks
    # Holds the mutex for the block; returns 1 if a try_lock found it held
    # before the blocking lock, else 0.
    def self.hold(mutex)
      waited = 0
      unless mutex.try_lock
        waited = 1
        mutex.lock
      end
      begin
        yield
      ensure
        mutex.unlock
      end
      waited
    end

    # The process cells: processes share no memory, so a group's lock is an
    # flock on its file. `workers` forked units per file each open it (flock
    # excludes other open file descriptions, not an inherited one) and,
    # `iterations` times, lock it, run the critical section (the block,
    # given the open file), unlock; a lock that LOCK_NB finds held counts as
    # contended before the blocking flock. Each worker reports its count
    # through a pipe; returns their sum, once every worker has been reaped.
    def self.flock_workers(paths, workers, iterations, mode)
      results, report = IO.pipe
      pids = paths.flat_map do |path|
        Array.new(workers) do
          Kit.fork do
            File.open(path, mode) do |file|
              waited = 0
              iterations.times do
                unless file.flock(File::LOCK_EX | File::LOCK_NB)
                  waited += 1
                  file.flock(File::LOCK_EX)
                end
                yield file
                file.flock(File::LOCK_UN)
              end
              report.write([waited].pack("Q<"))
            end
          end
        end
      end
      report.close
      waited = results.read.unpack("Q<*").sum # EOF once every worker has exited
      results.close
      Kit.wait(pids)
      waited
    end
  end
end
