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
  class Invocation
    def initialize(waits:)
      @waits = waits
    end

    def thread(mode:, **)
      count = units = 0
      body = @waits ? proc { Thread.pass; count += 1 } : proc { count += 1 }
      started = []
      case mode
      when "await" then yield proc { units += 1; Thread.new(&body).join }
      when "batch" then yield proc { units += 1; started << Thread.new(&body) }, proc { started.each(&:join).clear }
      when "forget" then yield proc { units += 1; Thread.new(&body) }, proc { Thread.pass }
      end
      (Thread.list - [Thread.current]).each(&:join) # the forgotten ones
      [{ count: count }, units]
    end

    # Tasks under the async gem's scheduler. A task runs as soon as it is
    # started, until it first yields; Sync returns once every task has finished.
    def fiber(mode:, **)
      count = units = 0
      body = @waits ? proc { |task| task.yield; count += 1 } : proc { count += 1 }
      Sync do |task|
        started = []
        case mode
        when "await" then yield proc { units += 1; task.async(&body).wait }
        when "batch" then yield proc { units += 1; started << task.async(&body) }, proc { started.each(&:wait).clear }
        when "forget" then yield proc { units += 1; task.async(&body) }, proc { task.yield }
        end
      end
      [{ count: count }, units]
    end

    # Fibers with no scheduler: the caller is the scheduler. Starting a fiber
    # resumes it until it first yields, as a scheduler would; awaiting it
    # resumes it until it has finished. Without a scheduler nothing else can
    # resume a forgotten fiber, so forget is batch.
    def raw_fiber(mode:, **)
      count = units = 0
      body = @waits ? proc { Fiber.yield; count += 1 } : proc { count += 1 }
      start = proc { units += 1; Fiber.new(&body).tap(&:resume) }
      finish = proc { |fiber| fiber.resume while fiber.alive? }
      started = []
      case mode
      when "await" then yield proc { finish.call(start.call) }
      when "batch", "forget" then yield proc { started << start.call }, proc { started.each(&finish).clear }
      end
      [{ count: count }, units]
    end
  end
end
