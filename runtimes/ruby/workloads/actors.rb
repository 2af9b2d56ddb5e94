module Workloads
  # What the actor mechanisms of several workloads share.
  module Actors
    # Concurrent::Actor has no blocking terminate: ask each actor to terminate,
    # then wait until every one has.
    def self.terminate(refs) = Concurrent::Promises.zip(*refs.map { |ref| ref.ask(:terminate!) }).wait!
  end
end
