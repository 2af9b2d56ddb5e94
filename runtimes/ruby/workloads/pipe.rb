require_relative "stream"

module Workloads
  Pipe = Stream.new(:close) { IO.pipe }
end
