require_relative "concurrent_procs"

module Workloads
  # invoke and invoke-waiting: one operation starts a unit whose body
  # increments a counter, and gets its result, as `mode` says:
  #   await:  start a unit, await it, then the next;
  #   batch:  start a whole batch, then await them all;
  #   forget: start a whole batch, then yield once so that they run (the
  #           seed's call_and_forget + `wait 0`); the run awaits the rest at its end.
  # A waiting unit yields to its scheduler once before it increments (the
  # seed's `wait 0` inside the proc). Each mechanism hands the kit its
  # operation and what ends a batch; the count is kept by the bodies.
  #
  # A unit is made per operation, so the fibers count themselves with
  # Kit::Units#start and #finish's instructions inlined on locals of the
  # mechanism (`started += 1; peak = [live += 1, peak].max` first, `live -=
  # 1` last: no interrupt check between a read and its write), which cost
  # half as much as the calls, and hand the figures over after the run
  # (Kit::Units#counted). What that costs is protocol.rb's COUNTING_COST.
  # Threads cannot share such locals where they run at once (JRuby: no GVL):
  # see #thread.
  class Invocation
    def initialize(waits:)
      @waits = waits
    end

    # Threads may run at once (JRuby), so they share no counter: each body
    # counts itself through the kit's units (Kit.units: locked where there
    # is no GVL; the call is lost in the making of a thread) and its count is
    # its value, which the caller adds as it awaits it. The forgotten threads
    # are kept to be awaited at the run's end (not Thread.list: on JRuby it
    # also holds JVM threads that never end, such as the finalizer's); those
    # that have ended are reaped after each batch, since a dead thread kept
    # keeps its memory (50,000 of them: 270 MiB RSS against 79 on CRuby 3.1, GC
    # off), and reaping costs an alive? a thread, lost in its making.
    def thread(mode:, **)
      units = Kit.units
      body = if @waits
               proc { units.unit { Thread.pass; 1 } }
             else
               proc { units.unit { 1 } }
             end
      count = 0
      waiting = []
      case mode
      when "await" then yield proc { count += Thread.new(&body).value }
      when "batch" then yield proc { waiting << Thread.new(&body) }, proc { count += waiting.sum(&:value); waiting.clear }
      when "forget" then yield proc { waiting << Thread.new(&body) }, proc { Thread.pass; waiting.reject! { |t| !t.alive? && count += t.value } }
      end
      count += waiting.sum(&:value) # the forgotten ones
      { count: count }
    end

    # Tasks under the async gem's scheduler. A task runs as soon as it is
    # started, until it first yields; Sync returns once every task has finished.
    def fiber(mode:, **)
      count = started = live = peak = 0
      body = if @waits
               proc { |task| started += 1; peak = [live += 1, peak].max; task.yield; count += 1; live -= 1 }
             else
               proc { started += 1; peak = [live += 1, peak].max; count += 1; live -= 1 }
             end
      Kit.sync do |task|
        waiting = []
        case mode
        when "await" then yield proc { task.async(&body).wait }
        when "batch" then yield proc { waiting << task.async(&body) }, proc { waiting.each(&:wait).clear }
        when "forget" then yield proc { task.async(&body) }, proc { task.yield }
        end
      end
      Kit.units.counted(started: started, peak: peak, live: live)
      { count: count }
    end

    # Fibers with no scheduler: the caller is the scheduler. Starting a fiber
    # resumes it until it first yields, as a scheduler would; awaiting it
    # resumes it until it has finished. Without a scheduler nothing else can
    # resume a forgotten fiber, so forget is batch.
    def raw_fiber(mode:, **)
      count = started = live = peak = 0
      body = if @waits
               proc { started += 1; peak = [live += 1, peak].max; Fiber.yield; count += 1; live -= 1 }
             else
               proc { started += 1; peak = [live += 1, peak].max; count += 1; live -= 1 }
             end
      start = proc { Fiber.new(&body).tap(&:resume) }
      finish = proc { |fiber| fiber.resume while fiber.alive? }
      waiting = []
      case mode
      when "await" then yield proc { finish.call(start.call) }
      when "batch", "forget" then yield proc { waiting << start.call }, proc { waiting.each(&finish).clear }
      end
      Kit.units.counted(started: started, peak: peak, live: live)
      { count: count }
    end

    # A concurrent proc of Concurrently, called as its report calls it in
    # each mode:
    #   await:  #call, which evaluates it at once and, if it waited, awaits
    #           its result;
    #   batch:  #call_detached, then each evaluation's #await_result;
    #   forget: #call_and_forget, then `wait 0` once per batch so that they
    #           run.
    # The caller is the thread's root fiber, as in the report: Concurrently
    # makes it an evaluation of its own, which #await_result and `wait`
    # suspend to its event loop.
    def concurrently(mode:, **)
      evaluating do |conproc|
        evaluations = []
        case mode
        when "await" then yield proc { conproc.call }
        when "batch" then yield proc { evaluations << conproc.call_detached }, proc { evaluations.each(&:await_result).clear }
        when "forget" then yield proc { conproc.call_and_forget }, proc { wait 0 }
        end
      end
    end

    # The same proc called with #call_nonblock, the report's fastest call: it
    # evaluates the proc at once and returns its result, or its evaluation if
    # it waited, which the caller awaits:
    #   await:  at once (what #call does, less a call);
    #   batch:  after the batch (the report's "waiting call_nonblock");
    #   forget: never: the result is dropped, and `wait 0` once per batch lets
    #           those that waited run on (the report's advice where the result
    #           is not needed and the proc almost never waits).
    def concurrently_nonblock(mode:, **)
      evaluating do |conproc|
        results = []
        case mode
        when "await" then yield proc { ConcurrentProcs.result(conproc.call_nonblock) }
        when "batch" then yield proc { results << conproc.call_nonblock }, proc { results.each { |r| ConcurrentProcs.result(r) }.clear }
        when "forget" then yield proc { conproc.call_nonblock }, proc { wait 0 }
        end
      end
    end

    private

    # Hands the block the concurrent proc of the body; then, with nothing to
    # await for the evaluations a mode forgot, waits until the last has
    # finished. The evaluations are the units; each runs on a fiber of the
    # event loop's pool, which outlives the run.
    def evaluating
      count = started = live = peak = 0
      body = if @waits
               proc { started += 1; peak = [live += 1, peak].max; wait 0; count += 1; live -= 1 }
             else
               proc { started += 1; peak = [live += 1, peak].max; count += 1; live -= 1 }
             end
      yield ConcurrentProcs.new(&body)
      wait 0 until live.zero?
      Kit.units.counted(started: started, peak: peak, live: live)
      { count: count }
    end
  end
end
