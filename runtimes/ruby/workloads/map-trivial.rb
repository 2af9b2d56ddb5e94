require_relative "../lib/pbt_modes"

module Workloads
  # Each case takes x in [-1,000,000, 1,000,000] from the LCG and computes
  # x + 1; `sum` adds up the results.
  module MapTrivial
    extend WorkerModes
    extend PbtModes

    def self.setup(cases:) = Lcg.draws(cases, -1_000_000, 1_000_000)
    def self.evaluate(x) = x + 1
    def self.evaluation(inputs, total) = total[:sum] += yield(inputs).sum
  end
end
