require_relative "../lib/invocation"

module Workloads
  Invoke = Invocation.new(waits: false)

  # The baseline, the seed's proc.call: a plain call, the same in every mode.
  # Its operation is the body itself, so the kit's loop is a bare loop over it.
  def Invoke.none(**)
    count = 0
    yield proc { count += 1 }
    { count: count }
  end
end
