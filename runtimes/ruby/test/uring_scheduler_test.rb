# The io_uring fiber scheduler on its own, outside the benchmark:
#   ruby runtimes/ruby/test/uring_scheduler_test.rb   (after make -C runtimes/ruby)
require "minitest/autorun"
require_relative "../uring_scheduler"

class UringSchedulerTest < Minitest::Test
  # Runs the block in a thread of its own with the scheduler set, as the kit
  # would; the scheduler is closed (its loop run to the end) before it returns.
  def with_scheduler(&block)
    Thread.new do
      scheduler = Concbench::UringScheduler.new
      Fiber.set_scheduler(scheduler)
      result = block.call(scheduler)
      Fiber.set_scheduler(nil)
      result
    end.value
  end

  def test_pipes_carry_every_size_up_to_and_past_the_pipe_buffer
    [1, 4095, 4096, 65_535, 65_536, 65_537, 1 << 20].each do |size|
      sent = Random.new(size).bytes(size)
      received = with_scheduler do
        r, w = IO.pipe
        got = nil
        Fiber.schedule { got = r.read; r.close }
        Fiber.schedule { w.write(sent); w.close }
        Fiber.scheduler.run
        got
      end
      assert_equal sent.bytesize, received.bytesize, "size #{size}"
      assert sent == received.b, "size #{size}: the bytes differ"
    end
  end

  def test_partial_reads_and_end_of_file
    chunks = with_scheduler do
      r, w = IO.pipe
      seen = []
      Fiber.schedule do
        while (chunk = r.readpartial(1000) rescue nil)
          seen << chunk.bytesize
        end
      end
      Fiber.schedule do
        3.times { w.write("x" * 700); sleep 0.01 }
        w.close
      end
      Fiber.scheduler.run
      seen
    end
    assert_equal 2100, chunks.sum
    assert chunks.all? { |n| n <= 1000 }
  end

  def test_sockets_carry_bytes_both_ways
    require "socket"
    got = with_scheduler do
      a, b = UNIXSocket.pair
      answer = nil
      Fiber.schedule { b.write(b.read(5).upcase); b.close }
      Fiber.schedule { a.write("hello"); answer = a.read(5); a.close }
      Fiber.scheduler.run
      answer
    end
    assert_equal "HELLO", got
  end

  def test_sleeps_overlap
    elapsed = with_scheduler do
      start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      10.times { Fiber.schedule { sleep 0.1 } }
      Fiber.scheduler.run
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    end
    assert_operator elapsed, :>=, 0.1
    assert_operator elapsed, :<, 0.5 # ten sleeps of 0.1 s at once, not one after another
  end

  def test_mutex_queue_and_condition_variable_hand_off_between_fibers
    order = with_scheduler do
      mutex = Thread::Mutex.new
      queue = Thread::Queue.new
      ready = Thread::ConditionVariable.new
      log = []
      Fiber.schedule { mutex.synchronize { log << :a1; sleep 0.01; log << :a2 } }
      Fiber.schedule { mutex.synchronize { log << :b } }
      Fiber.schedule { log << queue.pop }
      Fiber.schedule { queue << :popped }
      Fiber.schedule { mutex.synchronize { ready.wait(mutex); log << :signalled } }
      Fiber.schedule { sleep 0.02; mutex.synchronize { ready.signal } }
      Fiber.scheduler.run
      log
    end
    assert_equal %i[a1 a2 b], order.select { |e| %i[a1 a2 b].include?(e) }
    assert_includes order, :popped
    assert_includes order, :signalled
  end

  def test_an_unblock_from_another_thread_wakes_the_loop
    value = with_scheduler do
      queue = Thread::Queue.new
      got = nil
      Fiber.schedule { got = queue.pop }
      Thread.new { sleep 0.05; queue << 42 }
      Fiber.scheduler.run
      got
    end
    assert_equal 42, value
  end

  def test_a_stale_unblock_does_not_wake_a_fiber_from_its_next_wait
    got = with_scheduler do |scheduler|
      r, w = IO.pipe
      result = nil
      reader = Fiber.schedule { result = r.read(5) }
      Fiber.schedule do
        scheduler.unblock(nil, reader) # spurious, as stock Queue and Mutex may be: the reader waits for I/O
        sleep 0.02
        w.write("hello")
        w.close
      end
      scheduler.run
      result
    end
    assert_equal "hello", got
  end

  def test_a_fiber_that_raises_is_not_lost
    error = assert_raises(RuntimeError) do
      with_scheduler do
        Fiber.schedule { sleep 0.01; raise "boom" }
        Fiber.scheduler.run
      end
    end
    assert_equal "boom", error.message
  end

  def test_a_closed_descriptor_is_an_error_not_a_hang
    assert_raises(IOError) do
      with_scheduler do
        r, w = IO.pipe
        w.close
        Fiber.schedule { r.close; r.read }
        Fiber.scheduler.run
      end
    end
  end

  def test_ten_thousand_fibers_on_a_hundred_pipes_every_byte_checked
    totals = with_scheduler do
      pipes = Array.new(100) { IO.pipe }
      sums = Array.new(100, 0)
      pipes.each_with_index do |(r, _), i|
        Fiber.schedule { while (b = r.read(100)) do sums[i] += b.bytes.sum end }
      end
      writers = 10_000.times.map do |n|
        pipe = pipes[n % 100]
        Fiber.schedule { pipe[1].write((n % 256).chr * 100) }
      end
      Fiber.schedule do
        sleep 0.01 until writers.none?(&:alive?)
        pipes.each { |_, w| w.close }
      end
      Fiber.scheduler.run
      sums
    end
    expected = Array.new(100) { |i| (0...100).sum { |k| ((k * 100 + i) % 256) * 100 } }
    assert_equal expected, totals
  end
end
