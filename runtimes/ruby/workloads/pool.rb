require_relative "../lib/actors"

module Workloads
  # A pool of `pool_size` workers serves `jobs` jobs: job j looks up key
  # j mod `keys` in a table made before the timing (prepare) and returns its
  # value, 2k + 1. All jobs are submitted, then all are awaited, and the
  # values are summed. The units are the pool's workers.
  module Pool
    def self.prepare(keys:, **) = @table = Array.new(keys) { |k| [k, 2 * k + 1] }.to_h.freeze

    # The floor: the jobs looked up in place by the caller.
    def self.none(pool_size:, jobs:, keys:) = { sum: jobs.times.sum { |j| @table[j % keys] } }

    def self.thread(pool_size:, jobs:, keys:) = queued(pool_size, jobs, keys, :join) { |work| Thread.new(&work) }

    def self.fiber(pool_size:, jobs:, keys:)
      Kit.sync { |task| queued(pool_size, jobs, keys, :wait) { |work| task.async(&work) } }
    end

    # Each job is a future on the pool, as the seed's benchmark submits them (it
    # used async, whose completion nobody awaits). The units are the workers,
    # an actor each, and the pool's manager, an actor too, which hands every
    # call to an idle worker. A worker counts itself alive from its
    # initialize to its finalizer; the manager is not counted.
    def self.celluloid(pool_size:, jobs:, keys:)
      pool = CelluloidWorker.pool(size: pool_size, args: [@table, Kit.units])
      sum = Array.new(jobs) { |j| pool.future.lookup(j % keys) }.sum(&:value)
      pool.terminate
      # Celluloid 0.16 kills the pool's finalizer before it has waited for its
      # workers to end (celluloid#542): wait for them here.
      running_actors.each { |actor| ::Celluloid::Actor.join(actor) }
      { sum: sum }
    end

    # Celluloid 0.16's Actor.all reads each thread's actor twice, and a
    # worker that ends between the two reads makes it call behavior_proxy on
    # nil: look again, as the next look no longer sees that worker.
    def self.running_actors
      ::Celluloid::Actor.all
    rescue NoMethodError => e
      raise unless e.name == :behavior_proxy && e.receiver.nil?

      retry
    end

    if Kit.loaded?("celluloid")
      class CelluloidWorker
        include Actors::CelluloidUnit

        def initialize(table, units)
          super(units)
          @table = table
        end

        def lookup(key) = @table[key]
      end
    end

    # Each job is a Promises future on a fixed pool. The pool starts its
    # threads as jobs arrive: the units are those it started, by its own
    # count, and its threads live until it is shut down, so the most alive at
    # once is that count too.
    def self.concurrent(pool_size:, jobs:, keys:)
      pool = Concurrent::FixedThreadPool.new(pool_size)
      sum = Array.new(jobs) { |j| Concurrent::Promises.future_on(pool, j % keys) { |key| @table[key] } }.sum(&:value!)
      pool.shutdown
      pool.wait_for_termination
      Kit.units.counted(started: pool.largest_length, peak: pool.largest_length)
      { sum: sum }
    end

    # A hand-made pool: the workers pop job numbers from one queue until it is
    # closed and push each value into another; `await` ends a worker.
    def self.queued(pool_size, jobs, keys, await)
      todo, done = Thread::Queue.new, Thread::Queue.new
      units = Kit.units
      workers = Array.new(pool_size) { yield proc { units.unit { while (j = todo.pop) do done << @table[j % keys] end } } }
      jobs.times { |j| todo << j }
      todo.close # a closed queue's pop returns nil once it is empty
      sum = jobs.times.sum { done.pop }
      workers.each(&await)
      { sum: sum }
    end
  end
end
