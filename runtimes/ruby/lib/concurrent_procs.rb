module Workloads
  # Concurrently (seed 000's subject: concurrent procs on fibers, an event
  # loop per thread on nio4r) for the concurrently rows. It is required by
  # their runs only, never by the file that defines them: it patches Kernel
  # (wait, concurrent_proc, concurrently), IO (await_readable, ...) and Thread
  # (#[] becomes #thread_variable_get), which no other row's process may see.
  module ConcurrentProcs
    def self.load = require("concurrently")

    # A concurrent proc of the block: what Kernel#concurrent_proc returns, made
    # as concurrent_proc makes it, since on Ruby 3 concurrent_proc itself fails
    # ("tried to create Proc object without a block"): it calls Proc.new with
    # no block, which took the caller's block until Ruby 3.0.
    def self.new(&body)
      load
      Concurrently::Proc.new(&body)
    end

    # IO#await_written writes what write_nonblock takes, which may be part of
    # the data (a socket's buffer nearly full): the rest is written next.
    def self.write(io, data)
      written = io.await_written(data)
      written += io.await_written(data.byteslice(written..)) while written < data.bytesize
      written
    end

    # What Concurrently::Proc#call_nonblock returned, awaited: the proc's
    # result, or the evaluation of a proc that waited, whose result it awaits.
    def self.result(returned) = Concurrently::Proc::Evaluation === returned ? returned.await_result : returned
  end
end
