module Workloads
  # One operation: the measured unit yields to its scheduler and is resumed
  # (the seed's `wait 0`); it counts its own resumptions. `partners` more
  # units yield in a loop beside it, on the same scheduler, until the time box
  # is over; then they are stopped and awaited (timed, as the end of the run).
  #
  # `turn` is the spec's turn counter: every unit adds one each time it runs
  # (raw_fiber's caller too, the scheduler there; the thread VM's and async's
  # schedulers cannot be made to); a yield after which it has moved is
  # `switched`. Only the running unit touches it: fibers switch only where
  # they yield, and `turn += 1` has no interrupt check between its read and
  # its write (getlocal, opt_plus, setlocal), so under the GVL no thread runs
  # in between.
  module Yield
    # The units are fibers; their scheduler is the caller, which resumes the
    # measured unit, then each partner, once per operation.
    def self.raw_fiber(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      unit = Fiber.new do
        units.unit do
          loop do
            seen = turn += 1
            Fiber.yield
            break if stop
            switched += 1 if turn != seen
            resumed += 1
          end
        end
      end
      others = Array.new(partners) { Fiber.new { units.unit { until stop do turn += 1; Fiber.yield end } } }
      unit.resume # to its first yield
      others.each(&:resume)
      if others.empty?
        yield proc { turn += 1; unit.resume }
      else
        yield proc { turn += 1; unit.resume; others.each(&:resume) }
      end
      stop = true
      [unit, *others].each(&:resume) # to their ends
      Kit.evidence(switched: switched)
      { count: resumed }
    end

    # The measured unit is the thread running the loop; its scheduler is the
    # VM's, and the partners are threads looping Thread.pass.
    def self.thread(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      others = Array.new(partners) { Thread.new { units.unit { until stop do turn += 1; Thread.pass end } } }
      units.unit do
        yield proc {
          seen = turn += 1
          Thread.pass
          switched += 1 if turn != seen
          resumed += 1
        }
        stop = true
        others.each(&:join)
      end
      Kit.evidence(switched: switched)
      { count: resumed }
    end

    # The measured unit is the task running the loop; its scheduler is the
    # async reactor, and the partners are tasks looping task.yield.
    def self.fiber(partners:, **)
      units = Kit.units
      resumed = switched = turn = 0
      stop = false
      Kit.sync do |task|
        others = Array.new(partners) { task.async { |t| units.unit { until stop do turn += 1; t.yield end } } }
        units.unit do
          yield proc {
            seen = turn += 1
            task.yield
            switched += 1 if turn != seen
            resumed += 1
          }
          stop = true
          others.each(&:wait)
        end
      end
      # A lone task's yield goes through the reactor's loop and back, but
      # nothing of ours runs there to see it: with no partner, not observable.
      Kit.evidence(switched: partners.zero? ? nil : switched)
      { count: resumed }
    end
  end
end
