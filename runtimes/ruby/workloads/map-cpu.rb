require_relative "worker_modes"

module Workloads
  # Each case computes tarai(9, 4, 0), 55,229 calls that return 9; `sum` adds
  # up the results. The LCG has nothing to give: every case's input is (9, 4, 0).
  module MapCpu
    extend WorkerModes

    def self.setup(cases:) = Array.new(cases, [9, 4, 0])
    def self.evaluate(args) = tarai(*args)
    def self.evaluation(inputs, total) = total[:sum] += yield(inputs).sum

    def self.tarai(x, y, z) = x <= y ? y : tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y))
  end
end
