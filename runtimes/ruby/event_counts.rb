# What concbench's fiber scheduler asks of its event source per message of a
# stream workload, running the workload's own code for the mechanism as a
# trial does (one run, untimed by the harness): the ring's submissions,
# io_uring_enter calls and completions, or the epoll set's waits, ctl calls
# and events; with the run's wall, user and system time. For every system
# call, not only the event source's, run it under strace:
#
#   ruby runtimes/ruby/event_counts.rb MECHANISM WORKLOAD [GROUPS MESSAGES SIZE]
#   strace -f -c -o calls.txt ruby runtimes/ruby/event_counts.rb uring pipe 50 10000 1024
#
# MECHANISM: uring, uring_direct or epoll; WORKLOAD: pipe or socketpair; the
# parameters default to the standard profile's (50 groups of 10,000 1 KiB
# messages).
require_relative "kit"

mechanism, workload = ARGV[0], ARGV[1]
groups, messages, size = (ARGV[2..] || []).map { |arg| Integer(arg) }
groups ||= 50
messages ||= 10_000
size ||= 1024
unless Kit::SCHEDULERS.key?(mechanism) && %w[pipe socketpair].include?(workload)
  abort "usage: ruby #{$PROGRAM_NAME} #{Kit::SCHEDULERS.keys.join('|')} pipe|socketpair [GROUPS MESSAGES SIZE]"
end

Kit.instance_variable_set(:@mechanism, mechanism)
Kit.instance_variable_set(:@units, Kit::Units.new)
Kit.send(:load_library, mechanism)
impl = Kit.send(:load_workload, workload)

# The run's scheduler, kept as Kit.sync makes it.
schedulers = []
Concbench::Scheduler.singleton_class.prepend(Module.new do
  define_method(:new) { |*args| super(*args).tap { |scheduler| schedulers << scheduler } }
end)

wall, times = Process.clock_gettime(Process::CLOCK_MONOTONIC), Process.times
result = impl.public_send(Kit.send(:entry, impl, mechanism), groups: groups, messages: messages, size: size)
wall, cpu = Process.clock_gettime(Process::CLOCK_MONOTONIC) - wall, Process.times
abort "the run moved #{result[:bytes]} bytes, not #{groups * messages * size}" unless result[:bytes] == groups * messages * size

total = groups * messages
puts format("%s %s: %d groups x %d messages of %d bytes, %.3f s wall, %.3f s user, %.3f s system",
            mechanism, workload, groups, messages, size, wall, cpu.utime - times.utime, cpu.stime - times.stime)
schedulers.first.counts.each { |name, count| puts format("  %-12s %10d  %.3f a message", name, count, count.fdiv(total)) }
