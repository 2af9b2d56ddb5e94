require "pbt"

module Workloads
  # The workload's inputs as a Pbt arbitrary: Pbt draws its values in case
  # order, value i being [i, input i] (a ractor's leads with the workload,
  # which its block can reach no other way: it sees no outer variable).
  class PbtCases < Pbt::Arbitrary::Arbitrary
    def initialize(inputs, *lead)
      super()
      @inputs = inputs
      @lead = lead
      @next = 0
    end

    def generate(_rng)
      i = @next
      @next += 1
      [*@lead, i, @inputs.fetch(i)]
    end

    # No smaller input: a case that fails is reported as it is.
    def shrink(_value) = [].each
  end
end
