require_relative "readiness"

module Workloads
  AwaitWritable = Readiness.new(:wait_writable, filled: false)
end
