require_relative "../lib/readiness"

module Workloads
  AwaitWritable = Readiness.new(:wait_writable, filled: false)
end
