module Concbench
  # What a workload written for async's tasks uses under another
  # Fiber::Scheduler (concbench's, scheduler.rb; UringMachine's, um.rb):
  # async { } starts a fiber and returns its handle, whose wait returns the
  # block's value; yield lets the other fibers run (the scheduler's #pass).
  class Task
    def initialize(scheduler)
      @scheduler = scheduler
    end

    def async(&block)
      handle = Handle.new
      Fiber.schedule { handle.resolve(block.call(self)) }
      handle
    end

    def yield = @scheduler.pass
  end

  # A fiber's result, awaited through a stock Queue (the scheduler's block).
  class Handle
    def initialize
      @queue = Thread::Queue.new
      @done = false
    end

    def resolve(value) = @queue << value

    def wait
      @value, @done = @queue.pop, true unless @done
      @value
    end
  end
end
