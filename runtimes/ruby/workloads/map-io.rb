require_relative "../lib/pbt_modes"

module Workloads
  # Each case reads the whole of one file of `file_size` bytes and appends as
  # many characters as its LCG draw in [0, 10] says; `length` adds up the
  # lengths of the strings.
  module MapIo
    extend WorkerModes
    extend PbtModes

    # The file is written before the timing; each case gets its path and its draw.
    def self.setup(cases:, file_size:)
      path = File.join(Kit.scratch, "map-io")
      File.write(path, "x" * file_size)
      Lcg.draws(cases, 0, 10).map { |n| [path, n] }
    end

    def self.evaluate(input)
      path, n = input
      (File.read(path) << "x" * n).length
    end

    def self.evaluation(inputs, total) = total[:length] += yield(inputs).sum
  end
end
