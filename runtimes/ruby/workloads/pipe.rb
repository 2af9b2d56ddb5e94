require_relative "../lib/stream"

module Workloads
  Pipe = Stream.new(:close) { IO.pipe }
end
