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

    # A lock of UringMachine's pure API (the um row): a UM::Mutex, taken with
    # UM#synchronize, and whether it is held, which its critical section sets
    # first and clears last. UM::Mutex has neither try_lock nor locked?
    # (0.22.1).
    UmLock = Struct.new(:mutex, :held) do
      def initialize = super(UM::Mutex.new, false)
    end

    # UmLocks on one machine, held as Locks.hold holds a mutex: a unit looks
    # whether the lock is held just before UM#synchronize. The fibers of one
    # machine switch only where they wait, and UM::Mutex's unlock only marks
    # it free (the waiter woken tries again), so what the unit saw is what
    # the lock found.
    class OnMachine
      def initialize(machine)
        @machine = machine
      end

      def hold(lock)
        waited = lock.held ? 1 : 0
        @machine.synchronize(lock.mutex) do
          lock.held = true
          yield
        ensure
          lock.held = false
        end
        waited
      end
    end

    # The process cells: processes share no memory, so a group's lock is an
    # flock on its file. `workers` forked units per file each open it (flock
    # excludes other open file descriptions, not an inherited one) and,
    # `iterations` times, lock it, run the critical section (the block,
    # given the open file and what `before_lock`, if given, made of the
    # iteration's index before the lock), unlock; a lock that LOCK_NB finds
    # held counts as contended before the blocking flock. Each worker reports
    # its count through a pipe; returns their sum, once every worker has
    # been reaped.
    def self.flock_workers(paths, workers, iterations, mode, before_lock: nil)
      results, report = IO.pipe
      pids = paths.flat_map do |path|
        Array.new(workers) do
          Kit.fork do
            File.open(path, mode) do |file|
              waited = 0
              iterations.times do |i|
                input = before_lock&.call(i)
                unless file.flock(File::LOCK_EX | File::LOCK_NB)
                  waited += 1
                  file.flock(File::LOCK_EX)
                end
                yield file, input
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
