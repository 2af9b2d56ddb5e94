require "io/wait"
require_relative "concurrent_procs"

module Workloads
  # await-readable and await-writable: `batch` pipes are made before the
  # timing; operation i of a batch awaits the readiness of pipe i, which is
  # already ready (a byte waits in it, or it is empty): the cost of asking,
  # not of waiting. Awaits are sequential, as in the seed. An await counts
  # only when it reports readiness.
  class Readiness
    # wait: :wait_readable or :wait_writable; filled: each pipe holds a byte.
    def initialize(wait, filled:)
      @wait, @filled = wait, filled
    end

    # A thread waits in place: IO#wait_* polls the descriptor. The caller's
    # thread is the one unit.
    def thread(batch:, &loop)
      with_pipes(batch) { |ios| Kit.units.unit { await(ios, &loop) } }
    end

    # A task awaits through the async gem's scheduler (its reactor's
    # selector); Sync's task is the one unit.
    def fiber(batch:, &loop)
      with_pipes(batch) { |ios| Kit.sync { Kit.units.unit { await(ios, &loop) } } }
    end

    # Concurrently's name for each of Ruby's waits.
    CONCURRENTLY = { wait_readable: :await_readable, wait_writable: :await_writable }.freeze

    # The caller, the thread's root fiber, awaits through Concurrently's event
    # loop, as in its report (IO#await_readable and #await_writable register
    # the pipe with the loop's nio4r selector and suspend to the loop until it
    # is ready); it is the one unit.
    def concurrently(batch:, &loop)
      ConcurrentProcs.load
      with_pipes(batch) { |ios| Kit.units.unit { await(ios, CONCURRENTLY.fetch(@wait), &loop) } }
    end

    private

    # Operation i of a batch awaits pipe i: the end of a batch starts again at 0.
    def await(ios, wait = @wait)
      ready = i = 0
      yield proc { ready += 1 if ios[i].public_send(wait); i += 1 }, proc { i = 0 }
      { count: ready }
    end

    def with_pipes(count)
      pipes = Array.new(count) { IO.pipe }
      pipes.each { |_, writer| writer.write("0") } if @filled
      yield pipes.map { |reader, writer| @filled ? reader : writer }
    ensure
      pipes&.flatten&.each(&:close)
    end
  end
end
