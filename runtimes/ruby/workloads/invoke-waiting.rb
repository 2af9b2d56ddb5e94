require_relative "../lib/invocation"

module Workloads
  InvokeWaiting = Invocation.new(waits: true)
end
