require_relative "../lib/readiness"

module Workloads
  AwaitReadable = Readiness.new(:wait_readable, filled: true)
end
