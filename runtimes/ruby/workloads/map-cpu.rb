require_relative "../lib/pbt_modes"

module Workloads
  # Case i (0-based) computes (i + 1) * tarai(9, 4, 0), tarai making 55,229
  # calls that return 9; the unit that evaluates the case multiplies, and
  # `sum` adds up the results. The LCG has nothing to give: every case's
  # call is tarai(9, 4, 0); its input is [i + 1, 9, 4, 0].
  module MapCpu
    extend WorkerModes
    extend PbtModes

    def self.setup(cases:) = Array.new(cases) { |i| [i + 1, 9, 4, 0] }
    def self.evaluate((factor, x, y, z)) = factor * tarai(x, y, z)
    def self.evaluation(inputs, total) = total[:sum] += yield(inputs).sum

    def self.tarai(x, y, z) = x <= y ? y : tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))
  end
end
