require_relative "invocation"

module Workloads
  InvokeWaiting = Invocation.new(waits: true)
end
