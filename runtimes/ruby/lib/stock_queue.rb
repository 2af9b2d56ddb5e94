module Workloads
  # The stock queue of the thread and fiber cells of queue and mailbox:
  # Thread::Queue, or Thread::SizedQueue where a capacity bounds it (async's
  # scheduler suspends a task on either through its block and unblock hooks),
  # with the pushes that found it full and the pops that found it empty
  # counted. The look (`size`, `empty?`) and the push or pop are two C calls
  # with no interrupt check between them (getlocal, setlocal,
  # opt_send_without_block), so under the GVL no other thread runs in between
  # and a task switches only inside the push or pop: what was seen is what
  # the call found. Each unit counts in a local of its own.
  module StockQueue
    def self.new(capacity) = capacity.zero? ? ::Thread::Queue.new : ::Thread::SizedQueue.new(capacity)

    # Pushes each value; returns how many pushes found the queue full. An
    # unbounded queue is never full: its pushes are not looked at.
    def self.push_all(queue, values, capacity)
      if capacity.zero?
        values.each { |v| queue << v }
        return 0
      end
      blocked = 0
      values.each do |v|
        full = queue.size >= capacity
        queue << v
        blocked += 1 if full
      end
      blocked
    end

    # A block that pops one value each call, and counts in `waits` (a
    # one-element Array the caller reads afterwards) the pops that found the
    # queue empty.
    def self.popper(queue, waits)
      proc do
        empty = queue.empty?
        value = queue.pop
        waits[0] += 1 if empty
        value
      end
    end
  end
end
