require "socket"
require_relative "../lib/stream"

module Workloads
  # close_write on a socket is shutdown(SHUT_WR); the socket is closed after it.
  Socketpair = Stream.new(:close_write, sockets: true) { UNIXSocket.pair(:STREAM) }
end
