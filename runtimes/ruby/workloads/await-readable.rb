require_relative "readiness"

module Workloads
  AwaitReadable = Readiness.new(:wait_readable, filled: true)
end
