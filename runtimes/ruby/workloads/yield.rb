module Workloads
  # One operation: the one unit yields to its scheduler and is resumed (the
  # seed's `wait 0`). The unit counts its own resumptions.
  module Yield
    # The unit is a fiber; its scheduler is the caller, which resumes it.
    def self.raw_fiber(**)
      resumed = 0
      unit = Fiber.new { loop { Fiber.yield; resumed += 1 } }
      unit.resume # to its first yield
      yield proc { unit.resume }
      [{ count: resumed }, 1]
    end

    # The unit is the thread running the loop; its scheduler is the VM's.
    def self.thread(**)
      resumed = 0
      yield proc { Thread.pass; resumed += 1 }
      [{ count: resumed }, 1]
    end

    # The unit is a task; its scheduler is the async reactor.
    def self.fiber(**)
      resumed = 0
      Sync { |task| yield proc { task.yield; resumed += 1 } }
      [{ count: resumed }, 1]
    end
  end
end
