require_relative "../lib/worker_modes"

module Workloads
  # The property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The
  # units evaluate every case; the first failing one in case order (index f,
  # value v) is shrunk by bisection between 0, which passes, and v, which
  # fails: each round the units evaluate up to 8 evenly spaced candidates
  # strictly between the bounds; the smallest failing one becomes the upper
  # bound and the largest passing one below it the lower, until they are
  # adjacent. `first` adds up f, `minimal` the upper bounds, 101 each, and
  # `candidates` the candidate values the units evaluated while shrinking (the
  # results they returned: the gathered results are as many).
  module MapShrink
    extend WorkerModes

    def self.setup(cases:) = Lcg.draws(cases, -1_000_000, 1_000_000)
    def self.evaluate(x) = x <= 100

    def self.evaluation(inputs, total, &map)
      first = map.call(inputs).index(false) or raise "none of the cases fails the property"
      total[:first] += first
      total[:minimal] += shrink(inputs[first], total, &map)
    end

    def self.shrink(failing, total)
      passing = 0
      while failing - passing > 1
        candidates = (1..8).map { |k| passing + (failing - passing) * k / 9 }.uniq - [passing]
        held = yield candidates
        total[:candidates] += held.size
        failed = held.index(false) || candidates.size # candidates before it all pass
        passing = candidates[failed - 1] if failed > 0
        failing = candidates[failed] if failed < candidates.size
      end
      failing
    end
  end
end
