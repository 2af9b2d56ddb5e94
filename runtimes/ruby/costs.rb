# What the kit's own accounting costs inside the timing, the figures quoted
# in protocol.rb (COUNTING_COST, FORK_ACCOUNTING_COST). Rounds alternate, so that
# drift and the machine's other load hit both sides alike; medians.
#
#   ruby runtimes/ruby/costs.rb counting [ROUNDS] [SECONDS]   (default 21 1.0)
#   ruby runtimes/ruby/costs.rb fork [ROUNDS] [CHILDREN]      (default 15 100)
#
# counting: invoke's raw_fiber cell, mode=await, batch=100, gc off (a fiber
# made, run to its end and awaited per operation: where the counting of
# units weighs most), through the kit's own rate loop, as lib/invocation.rb has
# it and with its body's counting taken out.
# fork: spawn's process child with delay 0 (it writes 8 bytes to a pipe),
# forked and reaped one at a time, by Kit.fork and by a bare Process.fork.
require "tmpdir"
require_relative "kit"
require_relative "workloads/invoke"

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
def median(values) = values.sort[values.size / 2]

# lib/invocation.rb's raw_fiber in mode await, without the counting of units.
module Uncounted
  def self.raw_fiber(mode:, **)
    count = 0
    body = proc { count += 1 }
    start = proc { Fiber.new(&body).tap(&:resume) }
    finish = proc { |fiber| fiber.resume while fiber.alive? }
    yield proc { finish.call(start.call) }
    { count: count }
  end
end

def ns_per_op(impl, seconds)
  run = Kit.send(:measure_rate, impl, "raw_fiber", { mode: "await", batch: 100 }, seconds)
  raise "the body ran #{run[:result][:count]} times, not #{run[:ops]}" unless run[:result][:count] == run[:ops]
  [run[:wall_ns].fdiv(run[:ops]), (run[:user_ns] + run[:sys_ns]).fdiv(run[:ops])]
end

def counting(rounds, seconds)
  GC.disable # as the invoke profiles do
  ns_per_op(Uncounted, 0.2) && ns_per_op(Workloads::Invoke, 0.2) # warm up both
  bare, counted = Array.new(rounds) { [ns_per_op(Uncounted, seconds), ns_per_op(Workloads::Invoke, seconds)] }.transpose
  [[0, "wall"], [1, "CPU"]].each do |i, what|
    b, c = median(bare.map { |r| r[i] }), median(counted.map { |r| r[i] })
    puts format("%s per operation: %.0f ns without the counting, %.0f ns with it: %+.0f ns (%+.1f%%)",
                what, b, c, c - b, (c / b - 1) * 100)
  end
  puts format("(medians of %d alternating rounds of %.1f s, ruby %s)", rounds, seconds, RUBY_VERSION)
end

def fork_accounting(rounds, children)
  dir = Dir.mktmpdir
  path = File.join(dir, "children")
  Kit.instance_variable_set(:@children, File.open(path, File::WRONLY | File::CREAT | File::APPEND | File::BINARY))
  %i[@forks @alive @most_alive].each { |name| Kit.instance_variable_set(name, 0) }
  results, report = IO.pipe
  drain = Thread.new { results.read }
  bare, kit = Array.new(rounds) do
    t = now
    children.times do |i|
      pid = Process.fork do
        report.write([i].pack("Q<"))
      rescue Exception
        exit!(1)
      else
        exit!(0)
      end
      Process.waitpid(pid)
    end
    b = (now - t).fdiv(children)
    t = now
    children.times { |i| Kit.wait([Kit.fork { report.write([i].pack("Q<")) }]) }
    k = (now - t).fdiv(children)
    File.truncate(path, 0)
    [b, k]
  end.transpose
  report.close
  drain.join
  puts format("per child: %.0f us forked bare, %.0f us by Kit.fork: %+.0f us (medians of %d alternating rounds of %d children)",
              median(bare) / 1e3, median(kit) / 1e3, (median(kit) - median(bare)) / 1e3, rounds, children)
ensure
  FileUtils.remove_entry(dir) if dir
end

case ARGV.fetch(0, "")
when "counting" then counting(Integer(ARGV.fetch(1, "21")), Float(ARGV.fetch(2, "1.0")))
when "fork" then fork_accounting(Integer(ARGV.fetch(1, "15")), Integer(ARGV.fetch(2, "100")))
else abort "usage: ruby #{$PROGRAM_NAME} counting [ROUNDS] [SECONDS] | fork [ROUNDS] [CHILDREN]"
end
