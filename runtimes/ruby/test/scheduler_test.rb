# concbench's fiber scheduler on its own, outside the benchmark, on each of
# its back ends (io_uring and epoll):
#   ruby runtimes/ruby/test/scheduler_test.rb   (after make -C runtimes/ruby)
require "minitest/autorun"
require "io/nonblock"
require "socket"
require "timeout"
require_relative "../scheduler"

# The cases, run once per back end (scheduler_class).
module SchedulerCases
  # Runs the block in a thread of its own with the scheduler set, as the kit
  # would; the scheduler is closed (its loop run to the end) before it returns.
  def with_scheduler(&block)
    Thread.new do
      Thread.current.report_on_exception = false # the test sees the exception
      scheduler = scheduler_class.new
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

  def test_a_wait_for_readiness_gives_up_after_its_timeout
    waited = with_scheduler do
      r, w = IO.pipe
      results = []
      Fiber.schedule { results << r.wait_readable(0.02) }
      Fiber.schedule { results << r.wait_readable(1); r.close }
      Fiber.schedule { sleep 0.1; w.write("x"); w.close }
      Fiber.scheduler.run
      results
    end
    assert_equal 2, waited.size
    assert_nil waited[0] # nothing to read within 0.02 s
    refute_nil waited[1] # ... and then the byte, within 1 s
  end

  def test_timeout_interrupts_a_fiber_wherever_it_waits_and_its_io_ends_first
    outcomes = with_scheduler do
      r, _w = IO.pipe
      queue = Thread::Queue.new
      seen = []
      Fiber.schedule { Timeout.timeout(0.02) { r.read(1) } rescue seen << :read }
      Fiber.schedule { Timeout.timeout(0.02) { queue.pop } rescue seen << :pop }
      Fiber.schedule { Timeout.timeout(0.02) { sleep 5 } rescue seen << :sleep }
      Fiber.schedule { seen << Timeout.timeout(1) { :in_time } }
      Fiber.scheduler.run
      seen
    end
    assert_equal %i[in_time pop read sleep], outcomes.sort
  end

  def test_closing_the_scheduler_runs_every_waiting_fiber_to_its_end
    finished = with_scheduler do
      r, w = IO.pipe
      done = []
      Fiber.schedule { done << r.read(3) }
      Fiber.schedule { sleep 0.02; done << :slept }
      Fiber.schedule { sleep 0.03; w.write("abc"); w.close }
      done # the scheduler is closed here, with all three fibers waiting
    end
    assert_equal [:slept, "abc"], finished
  end

  # In a process of its own: with minitest's threads alive, another thread
  # might yet unblock the fibers, and the scheduler waits for it.
  def test_fibers_left_blocked_with_nothing_to_wake_them_are_an_error_not_a_hang
    script = <<~RUBY
      require #{File.expand_path("../scheduler", __dir__).dump}
      Fiber.set_scheduler(Concbench.const_get(ARGV[0]).new)
      queue = Thread::Queue.new
      2.times { Fiber.schedule { queue.pop } }
    RUBY
    output = IO.popen([RbConfig.ruby, "-e", script, scheduler_class.name.split("::").last, err: %i[child out]], &:read)
    refute_predicate $?, :success?
    assert_match(/2 fibers blocked with nothing left to wake them \(Concbench::Scheduler::Deadlock\)/, output)
  end

  # IO#pwrite and #pread, mutex-io's write: through the scheduler's hooks
  # from Ruby 3.3 on (Ruby 3.4.5 calls them without the GVL: the core makes
  # the call at once then, core.c); on 3.1 Ruby makes them itself.
  def test_positioned_reads_and_writes_land_where_they_are_told
    path = File.join(Dir.tmpdir, "concbench-hooks-#{Process.pid}")
    File.write(path, "." * 10)
    called = []
    got = with_scheduler do |scheduler|
      %i[io_pread io_pwrite].each do |hook|
        scheduler.singleton_class.define_method(hook) { |*args| called << hook; super(*args) } if scheduler.respond_to?(hook)
      end
      File.open(path, File::RDWR) do |file|
        read = nil
        Fiber.schedule { file.pwrite("ab", 4) }
        Fiber.schedule { sleep 0.01; read = file.pread(2, 3) }
        Fiber.scheduler.run
        read
      end
    end
    assert_equal "....ab....", File.read(path)
    assert_equal ".a", got
    assert_equal(RUBY_VERSION >= "3.3" ? %i[io_pwrite io_pread] : [], called)
  ensure
    File.delete(path) if File.exist?(path)
  end

  def test_the_cores_mutex_hands_off_to_its_waiters_in_order
    log = with_scheduler do
      mutex = Concbench::Core::Mutex.new
      seen = []
      Fiber.schedule { mutex.synchronize { seen << :a; sleep 0.01; seen << :a_done } }
      %i[b c].each { |name| Fiber.schedule { seen << [name, mutex.try_lock]; mutex.lock; seen << name; mutex.unlock } }
      Fiber.scheduler.run
      seen
    end
    assert_equal [:a, [:b, false], [:c, false], :a_done, :b, :c], log
  end

  # A fiber handed the core's mutex but raised into before it runs again
  # (as Timeout's alarm can be) passes the lock on instead of keeping it.
  def test_a_fiber_raised_into_as_it_is_handed_the_cores_mutex_passes_it_on
    seen, free = with_scheduler do
      mutex = Concbench::Core::Mutex.new
      seen = []
      Fiber.schedule do
        mutex.lock
        waiter = Fiber.schedule do
          mutex.lock
          seen << :kept_it
        rescue RuntimeError
          seen << :raised
        end
        Fiber.schedule { mutex.synchronize { seen << :next } }
        mutex.unlock # hands it to the waiter
        waiter.raise(RuntimeError, "stop")
      end
      Fiber.scheduler.run
      [seen, mutex.try_lock]
    end
    assert_equal %i[raised next], seen
    assert free
  end

  # As stock Mutex and UM::Mutex: unlock frees the lock and wakes a waiter,
  # and the fiber that unlocked may take it again before the waiter runs.
  def test_the_cores_mutex_lets_the_fiber_that_unlocks_take_it_again
    log = with_scheduler do
      mutex = Concbench::Core::Mutex.new
      seen = []
      Fiber.schedule do
        mutex.lock
        Fiber.schedule { mutex.lock; seen << :waiter; mutex.unlock }
        mutex.unlock # wakes the waiter, which has not run yet
        seen << [:retook, mutex.try_lock]
        Fiber.scheduler.pass # the waiter runs, finds it held and waits again
        seen << :unlocks
        mutex.unlock
      end
      Fiber.scheduler.run
      seen
    end
    assert_equal [[:retook, true], :unlocks, :waiter], log
  end

  # As stock Mutex: only the fiber holding the core's mutex may unlock it;
  # another's unlock raises ThreadError and leaves the lock held.
  def test_the_cores_mutex_refuses_an_unlock_by_a_fiber_that_does_not_hold_it
    log = with_scheduler do
      mutex = Concbench::Core::Mutex.new
      seen = []
      Fiber.schedule { mutex.lock; sleep 0.01; mutex.unlock; seen << :holder_unlocked }
      Fiber.schedule do
        mutex.unlock
        seen << :stranger_unlocked
      rescue ThreadError
        seen << [:refused, mutex.try_lock]
      end
      Fiber.scheduler.run
      seen
    end
    assert_equal [[:refused, false], :holder_unlocked], log
  end

  # A yield turns the loop: the back end is polled between turns, so a
  # fiber that keeps yielding lets a timer's fiber wake (it spun for ever
  # when the loop resumed the ready fibers until none was left).
  def test_a_yield_lets_the_loop_turn
    passes, polls = with_scheduler do |scheduler|
      woke = false
      passes = 0
      Fiber.schedule { sleep 0.01; woke = true }
      Fiber.schedule { (Fiber.scheduler.pass; passes += 1) until woke }
      before = scheduler.counts.values_at(:enters, :waits).compact.first
      scheduler.run
      [passes, scheduler.counts.values_at(:enters, :waits).compact.first - before]
    end
    assert_operator polls, :>=, passes - 1 # a poll between each two turns
  end

  def test_the_cores_queue_parks_poppers_and_a_bounded_one_its_pushers
    got = with_scheduler do
      queue = Concbench::Core::Queue.new(2)
      popped = []
      full = []
      Fiber.schedule { 3.times { popped << queue.pop } }
      Fiber.schedule { 1.upto(8) { |v| full << queue.size if queue.size >= 2; queue << v } }
      Fiber.schedule { 5.times { popped << queue.pop } }
      Fiber.scheduler.run
      [popped, full, queue.empty?]
    end
    popped, full, empty = got
    assert_equal (1..8).to_a, popped.sort
    refute_empty full # a push found the queue full and waited
    assert empty
  end

  # A completion arriving for a fiber that something else resumed meanwhile
  # resumes it once, for its own operation only.
  def test_a_fiber_resumed_by_something_else_waits_on_for_its_completion
    got = with_scheduler do
      r, w = IO.pipe
      reads = []
      reader = Fiber.schedule { reads << r.read(5) }
      Fiber.schedule do
        reader.resume # a stray resume: the reader's read is still in the kernel
        reads << :stray_resume_returned
        sleep 0.01
        w.write("hello")
        w.close
      end
      Fiber.scheduler.run
      reads
    end
    assert_equal [:stray_resume_returned, "hello"], got
  end

  def test_pipes_under_gc_stress
    got = with_scheduler do
      r, w = IO.pipe
      received = +""
      Fiber.schedule { while (chunk = r.read(10)) do received << chunk end }
      Fiber.schedule do
        GC.stress = true
        20.times { |i| w.write(i.to_s.rjust(10, "0")); sleep 0 }
      ensure
        GC.stress = false
        w.close
      end
      Fiber.scheduler.run
      received
    end
    assert_equal 20.times.map { |i| i.to_s.rjust(10, "0") }.join, got
  end

  def test_a_regular_file_is_always_ready
    ready = with_scheduler do
      File.open(__FILE__) { |file| file.wait_readable(1) }
    end
    refute_nil ready
  end
end

class UringSchedulerTest < Minitest::Test
  include SchedulerCases

  def scheduler_class = Concbench::UringScheduler

  def test_the_direct_path_reads_and_writes_through_the_ring
    got = with_scheduler do |ring|
      r, w = IO.pipe
      [r, w].each { |io| io.nonblock = false } # the kernel waits inside the operation
      received = +""
      Fiber.schedule do
        buffer = IO::Buffer.new(1000)
        while (n = ring.read(r.fileno, buffer, 1000)).positive?
          received << buffer.get_string(0, n)
        end
      end
      Fiber.schedule do
        block = IO::Buffer.for("y" * 70_000)
        ring.write(w.fileno, block, 70_000)
        w.close
      end
      ring.run
      received
    end
    assert_equal "y" * 70_000, got
  end

  def test_a_positioned_write_lands_where_it_is_told
    path = File.join(Dir.tmpdir, "concbench-pwrite-#{Process.pid}")
    File.write(path, "." * 10)
    with_scheduler do |ring|
      File.open(path, File::WRONLY) do |file|
        Fiber.schedule { ring.write(file.fileno, IO::Buffer.for("ab"), 2, 4) }
        ring.run
      end
    end
    assert_equal "....ab....", File.read(path)
  ensure
    File.delete(path) if File.exist?(path)
  end

  # ---- the C core's own cases, on the direct path ---------------------------

  # The readers' fibers and buffers are held by nothing but the ring while
  # the kernel has the reads: the ring must keep them alive.
  def test_buffers_and_fibers_nobody_holds_live_until_their_completion
    total = with_scheduler do |ring|
      pipes = Array.new(20) { IO.pipe.each { |io| io.nonblock = false } }
      sum = [0]
      pipes.each do |r, _|
        Fiber.schedule { n = ring.read(r.fileno, IO::Buffer.new(64), 64); sum[0] += n }
      end
      3.times { GC.start(full_mark: true, immediate_sweep: true) }
      GC.compact if GC.respond_to?(:compact)
      pipes.each { |_, w| w.write("z" * 64) }
      ring.run
      sum[0]
    end
    assert_equal 20 * 64, total
  end

  def test_a_completion_for_a_closed_descriptor_is_the_fibers_error
    outcomes = with_scheduler do |ring|
      a, b = UNIXSocket.pair
      r, w = IO.pipe
      fd = r.fileno
      r.close # and no descriptor opened after it takes its number
      seen = []
      Fiber.schedule { ring.read(fd, IO::Buffer.new(8), 8) rescue seen << $!.class }
      Fiber.schedule { seen << ring.read(a.fileno, IO::Buffer.new(8), 8) } # in flight when its socket is shut
      Fiber.schedule { a.shutdown; b.close }
      ring.run
      a.close
      w.close
      seen
    end
    assert_equal [Errno::EBADF, 0], outcomes
  end

end

class EpollSchedulerTest < Minitest::Test
  include SchedulerCases

  def scheduler_class = Concbench::EpollScheduler
end
