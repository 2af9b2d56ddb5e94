# How much of a plain call's rate the kit's rate loop keeps, against a bare
# hand-written `while` loop over the same call in the same process: the
# `invoke` baseline (ruby/none) must read within 3% of the bare loop, or the
# kit's loop, not the call, would be measured. benchmark-ips's block form
# keeps only about half. Rounds alternate, so drift hits both alike.
#
#   ruby runtimes/ruby/fidelity.rb [ROUNDS] [SECONDS]   (make fidelity)
require_relative "kit"
require_relative "workloads/invoke"

BATCH = 100
TOLERANCE = 0.03

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)

# The seed's loop: batches of calls of an empty proc until the time is up.
# Returns [calls, nanoseconds].
def bare_loop(body, seconds, batch = BATCH)
  calls = 0
  start = now
  deadline = start + seconds * 1e9
  while now < deadline
    i = 0
    while i < batch
      body.call
      i += 1
    end
    calls += batch
  end
  [calls, now - start]
end

# Made here, not in bare_loop: a block capturing the loop's own locals would
# move them to the heap and slow the bare loop down.
def bare_rate(seconds)
  count = 0
  calls, elapsed = bare_loop(proc { count += 1 }, seconds)
  raise "the body ran #{count} times, not #{calls}" unless count == calls
  calls * 1e9 / elapsed
end

def kit_rate(seconds)
  run = Kit.send(:measure_rate, Workloads::Invoke, "none", { mode: "await", batch: BATCH }, seconds)
  raise "the body ran #{run[:result][:count]} times, not #{run[:ops]}" unless run[:result][:count] == run[:ops]
  run[:ops] * 1e9 / run[:wall_ns]
end

def median(values) = values.sort[values.size / 2]

rounds = Integer(ARGV.fetch(0, "41"))
seconds = Float(ARGV.fetch(1, "0.2"))
GC.disable # as the seed and the invoke workload do
kit_rate(0.2) && bare_rate(0.2) # warm up both
bare, kit = Array.new(rounds) { [bare_rate(seconds), kit_rate(seconds)] }.transpose
ratio = median(kit) / median(bare)
puts format("ruby %s: bare while loop %.2fM calls/s, kit %.2fM calls/s (medians of %d alternating rounds of %.1f s)",
            RUBY_VERSION, median(bare) / 1e6, median(kit) / 1e6, rounds, seconds)
puts format("the kit's rate is %.1f%% of the bare rate (required: within %d%%)", ratio * 100, TOLERANCE * 100)
exit((ratio - 1).abs <= TOLERANCE ? 0 : 1)
