# The catalogue's portable inputs, identical in every language
# (src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31 from
# seed 42. Draw k is the (k+1)-th value; mapped to [lo, hi] it is
# lo + x mod (hi - lo + 1). Case i of a workload uses draw i.
module Lcg
  SEED = 42

  def self.draws(count, lo, hi)
    x = SEED
    Array.new(count) do
      x = (x * 1103515245 + 12345) % 2**31
      lo + x % (hi - lo + 1)
    end
  end
end
