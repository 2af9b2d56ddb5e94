# The Ruby kit's protocol (docs/protocol.md), outside the clocks: the request,
# the runs and their warm-up, the units and evidence a workload counts, the
# answer. kit.rb, the main script, runs what is inside the clocks and says
# why the two are apart; its header is the workload API.
require "json"

module Kit
  # CRuby's threads run Ruby code one at a time, under its global VM lock;
  # JRuby's run at once, on JVM threads.
  GVL = RUBY_ENGINE == "ruby"
  # The engine's version, recorded with every trial; JRuby's also names the
  # Ruby it implements and the JVM it runs on.
  VERSION = RUBY_ENGINE != "jruby" ? RUBY_VERSION : "#{RUBY_ENGINE_VERSION} (ruby #{RUBY_VERSION}, java #{ENV_JAVA['java.version']})"
  # The mechanisms that run on concbench's own scheduler (scheduler.rb), and its back end.
  SCHEDULERS = { "uring" => :UringScheduler, "uring_direct" => :UringScheduler, "epoll" => :EpollScheduler }.freeze
  # UringMachine's rows (lib/um.rb), and the scheduler each runs Kit.sync on:
  # um, its pure API, none (its units are UM#spin's fibers); um_fs, its
  # fiber scheduler, which runs the fiber method (FIBER_ROWS).
  UM_ROWS = { "um" => nil, "um_fs" => :UmScheduler }.freeze
  LIBRARIES = { "fiber" => "async", "celluloid" => "celluloid", "concurrent" => "concurrent-edge",
                **SCHEDULERS.transform_values { File.join(__dir__, "scheduler") },
                **UM_ROWS.transform_values { File.join(__dir__, "lib", "um") } }.freeze
  # Mechanisms that run a workload's fiber method, on their own scheduler
  # (Kit.sync), unless the workload has a method of theirs.
  FIBER_ROWS = %w[uring epoll um_fs].freeze
  # Parameters of the kit's rate loop, not of the mechanism.
  LOOP_PARAMS = %i[seconds gc].freeze

  # COUNTING_COST, where counting units weighs most: invoke's raw_fiber cell
  # with mode=await (a fiber made, run to its end and awaited per operation,
  # its counting inlined: lib/invocation.rb), batch=100, seconds=1, gc=off, with
  # and without the counting in the unit's body, 21 alternating rounds in one
  # process (`ruby runtimes/ruby/costs.rb counting`): 3,990 ns an operation
  # without, 4,066 ns with, +76 ns (+1.9%), in wall and CPU time alike. The
  # calls Units#start and #finish cost about 90 ns a unit, the inlined
  # instructions about 40 (tight loops of 5 million bodies); elsewhere units
  # are made once a run, and the counting is lost in the making of a thread,
  # a task or an actor. On JRuby (AtomicUnits) a unit's start and finish
  # cost about 30 to 130 ns, against 400 to 1,100 with the Thread::Mutex the
  # kit took before (11 rounds of a million pairs, one thread and two); on
  # jruby/thread's spawn and ring the difference is lost in the noise
  # (docs/protocol.md, "Evidence").

  # GC_BEFORE_EACH_RUN: a full collection before every run, warm-ups and
  # timed ones, outside the clocks, so that no run pays for an earlier run's
  # garbage and every run pays for its own (docs/extending.md, "Settled
  # policies"); the flags say so. Under gc=off (GC.disable) CRuby's GC.start
  # still collects (3.1: GC.count goes up and the live slots go down) and
  # leaves the collector off. JRuby 10's GC.start does nothing at all (its
  # RubyGC.start only checks its arguments), so on JRuby the kit asks the JVM
  # itself, with System.gc, as the Java kit does; JRuby's GC.disable never
  # stopped the JVM's collector.
  GC_FLAG = "gc before each run"

  def self.collect_garbage = RUBY_ENGINE == "jruby" ? java.lang.System.gc : GC.start

  # The CPU clock of a run (kit.rb's clocks): CPU_CLOCK.times, the process's
  # and its reaped children's user and system time. CRuby's Process.times is
  # getrusage(2), in microseconds. JRuby's is times(2), in clock ticks of 10
  # ms, user and system each rounded down: a run's CPU time could be off by
  # up to 20 ms either way, a fifth of a 100 ms run, and more than the 10 ms
  # a confined trial's run may show beyond its CPUs' time (docs/protocol.md,
  # "CPUs"). On JRuby the kit calls getrusage itself, through the JVM's FFM
  # API, as the Java kit does (runtimes/java/kit/Clock.java); making the
  # call costs a trial's start about 0.1 s of CPU and 6 MB with the build's
  # archive of classes (a floor request, the mean of 6: 2.19 s and 167 MB
  # against 2.07 s and 161 MB), 0.4 s without it.
  if RUBY_ENGINE == "jruby"
    # JRuby warns, on stderr, that it defined the Ruby constant of the class
    # of FFM's native segments (jdk.internal.foreign::NativeMemorySegmentImpl)
    # twice as it first wraps one: silenced while the module is made.
    verbose, $VERBOSE = $VERBOSE, nil
    module Rusage
      foreign = java.lang.foreign
      linker = foreign.Linker.nativeLinker
      int = foreign.ValueLayout::JAVA_INT
      getrusage = linker.downcallHandle(linker.defaultLookup.find("getrusage").get,
                                        foreign.FunctionDescriptor.of(int, int, foreign.ValueLayout::ADDRESS))
      # As a Java interface, which JRuby can call (a method handle's
      # invokeExact it cannot).
      GETRUSAGE = java.lang.invoke.MethodHandleProxies.asInterfaceInstance(
        java.util.function.ToIntBiFunction.java_class, getrusage
      )
      SELF, CHILDREN = [0, -1].map { |who| who.to_java(:int) }
      # struct rusage on 64-bit Linux: ru_utime and ru_stime, each a struct
      # timeval (tv_sec, tv_usec: two longs), then 14 longs. One reading at a
      # time: the kit's clocks are read by one thread, the kit's, or the unit
      # that runs the rate loop while the kit's waits.
      USAGE = foreign.Arena.global.allocate(144, 8)
      LONG = foreign.ValueLayout::JAVA_LONG

      def self.times
        user, sys = read(SELF)
        child_user, child_sys = read(CHILDREN)
        Process::Tms.new(user, sys, child_user, child_sys)
      end

      def self.read(who)
        raise SystemCallError, "getrusage failed" unless GETRUSAGE.applyAsInt(who, USAGE).zero?
        [USAGE.get(LONG, 0) + USAGE.get(LONG, 8) / 1e6, USAGE.get(LONG, 16) + USAGE.get(LONG, 24) / 1e6]
      end

      # Once before any run: JRuby binds its calls into Java as they are
      # first made (10 to 20 ms here), which no run's clocks should hold.
      times
    end
    $VERBOSE = verbose
    CPU_CLOCK = Rusage
  else
    CPU_CLOCK = Process
  end

  # A request the kit cannot serve: a clean refusal, not a failure.
  class Refusal < StandardError; end

  # The warm-up runs a trial takes: the request's "warmup", or, where it asks
  # for a steady warm-up, groups of runs until the last "window" groups lie
  # within "spread" of each other or "most" runs have run, each run judged by
  # its "measure": wall time, or CPU time (user + system). The rule is the
  # harness's (src/concbench/warmup.py), which checks that the runs stopped
  # where it says; its arithmetic is copied exactly.
  class Warmup
    attr_reader :group

    def initialize(request)
      @least = request.fetch("warmup")
      steady = request["steady"]
      @group, @most, @window, @spread = steady ? steady.values_at("group", "most", "window", "spread") : [1, @least, 0, 0.0]
      @cpu = steady && steady["measure"] == "cpu"
      @costs = []
      @group_cost = 0.0
      @taken = 0
    end

    # Whether another group of warm-up runs is due.
    def due?
      @taken < @most && (@taken < @least || !steady?)
    end

    # Whether any warm-up ran.
    def warmed?
      @taken > 0
    end

    def ran(run)
      ops = run[:ops].to_i
      spent = @cpu ? run.fetch(:user_ns) + run.fetch(:sys_ns) : run.fetch(:wall_ns)
      @group_cost += spent.to_f / (ops.zero? ? 1 : ops)
      @taken += 1
      return unless (@taken % @group).zero?
      @costs << @group_cost
      @group_cost = 0.0
    end

    private

    def steady?
      return false if @window.zero? || @costs.size < @window
      last = @costs.last(@window)
      last.max <= (1 + @spread) * last.min
    end
  end

  # A run's units: how many started, and the most alive at once.
  class Units
    def initialize
      @started = @live = @peak = 0
      @spans = []
      @counted = nil
      @threads = {}
      @busy = @busiest = 0
    end

    # The first act of a unit's body. No interrupt check between reading and
    # writing the counters (insns: getinstancevariable, opt_plus,
    # setinstancevariable; opt_newarray_max computes the peak with no call and
    # no branch): under the GVL no other thread runs in between.
    def start
      @started += 1
      @peak = [@live += 1, @peak].max
      nil
    end

    # The last act of a unit's body.
    def finish
      @live -= 1
      nil
    end

    def unit
      start
      yield
    ensure
      finish
    end

    # A task on a pooled thread: the Hash store and the counters are C calls
    # and instructions with no interrupt check in between, as in #start.
    def task
      @threads[Thread.current] = true
      @busiest = [@busy += 1, @busiest].max
      yield
    ensure
      @busy -= 1
    end

    # Units that took their own stamps (Kit.stamp) as they started and ended.
    def spans(pairs)
      @spans.concat(pairs)
      nil
    end

    # Figures counted elsewhere (see kit.rb's header); `live`: those still alive.
    def counted(started:, peak:, live: 0)
      raise "#{live} units still alive at the end of the run" unless live.zero?
      @counted = [started, peak]
      nil
    end

    # [units, peak_live], after the run (the clocks stopped).
    def count
      raise "#{@live + @busy} units still alive at the end of the run" unless @live.zero? && @busy.zero?
      sources = [@started > 0, !@spans.empty?, !@counted.nil?, !@threads.empty?].count(true)
      raise "a run counts its units one way: start/finish, spans, counted or task" if sources > 1
      return @counted if @counted
      return [@threads.size, @busiest] unless @threads.empty?
      return [@started, @peak] if @spans.empty?
      # The most spans open at once; a span that ends when another starts is
      # counted as ended first.
      events = @spans.flat_map { |start, stop| [[start, 1], [stop, -1]] }.sort_by! { |t, d| [t, d] }
      live = 0
      [@spans.size, events.map { |_, d| live += d }.max]
    end
  end

  # A run's units where threads run Ruby code at once (no GVL: JRuby): the
  # counters' reads and writes are no longer whole, so they are the JVM's
  # atomics (java.util.concurrent.atomic, through JRuby's Java integration),
  # as the Java kit's are: a unit's first and last act are an atomic add or
  # two and a compare-and-set, and counting takes no lock the workload does
  # not take. The figures are read into Units' variables after the run.
  class AtomicUnits < Units
    def initialize
      super
      @started_count, @live_count, @peak_count, @busy_count, @busiest_count =
        Array.new(5) { java.util.concurrent.atomic.AtomicLong.new }
      @threads = java.util.concurrent.ConcurrentHashMap.new
    end

    def start
      @started_count.increment_and_get
      raise_to(@peak_count, @live_count.increment_and_get)
      nil
    end

    def finish
      @live_count.decrement_and_get
      nil
    end

    def task
      @threads.put(Thread.current, true)
      raise_to(@busiest_count, @busy_count.increment_and_get)
      yield
    ensure
      @busy_count.decrement_and_get
    end

    def count
      @started, @live, @peak = @started_count.get, @live_count.get, @peak_count.get
      @busy, @busiest = @busy_count.get, @busiest_count.get
      super
    end

    private

    # Every change of a counter is one step in its modification order, so the
    # values increment_and_get returns are every value it took: their maximum
    # is the peak.
    def raise_to(peak, value)
      seen = peak.get
      seen = peak.get until seen >= value || peak.compare_and_set(seen, value)
    end
  end

  class << self
    # The trial's scratch directory, for the workloads' files.
    attr_reader :scratch

    # The run's units (see kit.rb's header).
    attr_reader :units

    # The monotonic clock in ns, for units that take their own stamps
    # (callable in any ractor, and comparable across forked processes).
    def stamp = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)

    # The fiber rows' Sync { |task| ... }: async's for fiber, concbench's
    # scheduler's for the mechanisms in SCHEDULERS, UringMachine's for um_fs
    # (UM_ROWS), so that all run one workload code: task.async { } and its
    # wait, task.yield.
    def sync(&block)
      scheduler = SCHEDULERS[@mechanism] || UM_ROWS[@mechanism]
      scheduler ? Concbench.const_get(scheduler).sync(&block) : Sync(&block)
    end

    # A count of what a workload keeps alive at once besides its units (echo's
    # connections held), on the run's kind of counter: start, finish and
    # count ([started, peak]), or spans, as on Kit.units.
    def counter = GVL ? Units.new : AtomicUnits.new

    # Says where the run's server listens, before its timed region (a
    # server's workload: echo): a line of its own on stdout, flushed at once,
    # which the harness reads as it comes and hands to the load generator;
    # the answer stays the last line.
    def listening(address)
      @response_out.puts(JSON.generate(listening: address))
      @response_out.flush
      nil
    end

    # Reports the run's evidence (see kit.rb's header).
    def evidence(**counts)
      @evidence.merge!(counts)
      nil
    end

    # Runs the block in a forked child, which then appends the stamps of its
    # body, and in runs that account for memory its private memory (kB), to
    # the run's file of children (one write(2) of 24 bytes with O_APPEND:
    # whole, whoever else appends) for the kit to read after the run: a file
    # cannot fill up and block the child the way a pipe nobody reads would.
    # Returns the pid; the workload reaps it (wait below).
    def fork
      @forks += 1
      @alive += 1
      @most_alive = @alive if @alive > @most_alive
      Process.fork do
        begin
          start = stamp
          yield
          stop = stamp
          @children.syswrite([@account_memory ? private_kb : 0, start, stop].pack("Q<3"))
        rescue Exception => e
          warn e.full_message
          exit!(1)
        end
        exit!(0)
      end
    end

    # FORK_ACCOUNTING_COST: reading /proc/self/smaps_rollup (the kernel walks
    # the child's page tables, about 0.24 ms here) and parsing it: +0.3-0.4 ms
    # a child, next to the 1.0-1.2 ms of forking spawn's child (it writes 8
    # bytes to a pipe), letting it exit and reaping it (`ruby
    # runtimes/ruby/costs.rb fork`: 15 alternating rounds of 100 children
    # forked and reaped one at a time). A child's memory can be read only
    # while it lives, so inside the run that reaps it: the kit therefore
    # accounts for memory only in the warm-up runs, whose times are
    # discarded, and in the timed runs only where a trial has no warm-up
    # (spawn: one run per process), where the process row pays it and the
    # docs say so. The stamps cost a child one 24-byte append.

    # Reaps the children, failing the run if one of them failed.
    def wait(pids)
      pids.each do |pid|
        _, status = Process.waitpid2(pid)
        @alive -= 1
        raise "child #{pid} failed: #{status}" unless status.success?
      end
    end

    # Whether the mechanism's library (LIBRARIES) loaded in this process.
    def loaded?(mechanism) = loaded.include?(mechanism)

    # `mechanisms`: the mechanisms of the runtime the kit serves, comma-
    # separated (its manifest's, which the command passes as {mechanisms}),
    # not a list of the kit's own: a workload implements the ones it
    # responds to. Another Ruby (runtimes/jruby, runtimes/ruby34) runs this
    # kit with its own.
    def main(mechanisms)
      @mechanisms = mechanisms.split(",").freeze
      @response_out = STDOUT.dup
      STDOUT.reopen(STDERR) # anything else written to stdout, by us or a child, goes to stderr
      code = 0
      response = begin
        serve(JSON.parse($stdin.read))
      rescue Refusal => e
        { ok: false, error: e.message }
      rescue Exception => e
        warn e.full_message
        code = 1
        { ok: false, error: "#{e.class}: #{e.message}".gsub(/\s+/, " ") }
      end
      @response_out.puts(JSON.generate(response))
      @response_out.flush
      exit(code)
    end

    # The build's training run (runtimes/jruby's Makefile, for the JVM's
    # archive of JRuby's classes): serves each request on stdin, one a line,
    # in this one process. Answers are dropped, and a request that fails is
    # only said: each trial checks its own.
    def train(mechanisms)
      @mechanisms = mechanisms.split(",").freeze
      @response_out = STDERR
      $stdin.each_line do |line|
        serve(JSON.parse(line))
      rescue Exception => e
        warn "training: #{e.class}: #{e.message}, serving #{line}"
      end
      exit(0) # as a trial does: a unit left behind must not keep the process up
    end

    private

    def serve(request)
      @flags = []
      kind = request.fetch("kind", "fixed")
      return { ok: true, runtime: runtime, runs: [] } if kind == "floor"
      return { ok: true, runtime: runtime, runs: [], implements: implemented } if kind == "list"
      raise Refusal, "unknown kind #{kind.inspect}" unless %w[fixed rate].include?(kind)
      workload, mechanism = request.fetch("workload"), request.fetch("mechanism")
      @mechanism = mechanism
      load_library(mechanism) # first: a workload defines its actor classes only if their library is loaded
      impl = load_workload(workload)
      unless mechanisms(impl).include?(mechanism)
        raise Refusal, "mechanism #{mechanism.inspect} is not implemented for workload #{workload.inspect}"
      end
      @scratch = request.fetch("scratch")
      @children_path = File.join(@scratch, ".kit-children")
      @children = File.open(@children_path, File::WRONLY | File::CREAT | File::APPEND | File::BINARY)
      @forks = @alive = @most_alive = 0
      params = request.fetch("params").transform_keys(&:to_sym)
      rate = kind == "rate"
      loop_params = rate ? params.slice(*LOOP_PARAMS) : {}
      params = params.except(*LOOP_PARAMS) if rate
      if loop_params[:gc] == "off"
        GC.disable # as the Concurrently seed does; recorded in the flags where it holds
        @flags << "gc=off" unless RUBY_ENGINE == "jruby" # whose GC.disable does nothing: the JVM collects
      end
      impl.prepare(**params) if impl.respond_to?(:prepare)
      warmup = Warmup.new(request)
      largest_tree = nil
      one_run = lambda do |warming|
        @account_memory = warming || !warmup.warmed? # see FORK_ACCOUNTING_COST
        Kit.collect_garbage # see GC_BEFORE_EACH_RUN
        run = rate ? measure_rate(impl, mechanism, params, loop_params.fetch(:seconds)) : measure(impl, mechanism, params)
        tree = collect_forks if @forks > 0
        largest_tree = [largest_tree || 0, tree].max if tree && @account_memory
        { warmup: warming }.merge(run, count)
      end
      runs = []
      runs.concat(Array.new(warmup.group) { one_run.call(true).tap { |run| warmup.ran(run) } }) while warmup.due?
      runs.concat(Array.new(request.fetch("runs")) { one_run.call(false) })
      response = { ok: true, runtime: runtime, runs: runs }
      response[:tree_rss_kb] = own_peak_kb + largest_tree if largest_tree
      response
    end

    def loaded = (@loaded ||= [])

    def load_library(mechanism)
      return unless (library = LIBRARIES[mechanism])
      require library
      loaded << mechanism
      # Celluloid logs at debug level by default (every actor it terminates at
      # exit), and 0.16 warns each time a pool is terminated that it killed the
      # pool's finalizer (celluloid#542; pool.rb makes up for it): errors only.
      Celluloid.logger.level = Logger::ERROR if mechanism == "celluloid"
    end

    def mechanisms(impl) = @mechanisms.select { |name| impl.respond_to?(entry(impl, name)) }

    # The workload's method for a mechanism (see FIBER_ROWS). A workload
    # (its module, or its object's class) names in NOT_FIBER_ROWS the fiber
    # rows its fiber method must not run for (their manifest's n/a).
    def entry(impl, mechanism)
      owner = impl.is_a?(Module) ? impl : impl.class
      fiber = FIBER_ROWS.include?(mechanism) && !impl.respond_to?(mechanism) &&
              !(owner.const_defined?(:NOT_FIBER_ROWS, false) && owner::NOT_FIBER_ROWS.include?(mechanism))
      fiber ? :fiber : mechanism.to_sym
    end

    # Every workload file's mechanisms (the protocol's list request). The
    # libraries of the manifest's mechanisms are loaded first: a workload
    # defines its actors only with them.
    # One that is missing is left out: its mechanism's probe says so.
    def implemented
      LIBRARIES.slice(*@mechanisms).each_key do |mechanism|
        load_library(mechanism)
      rescue LoadError
        next
      end
      Dir[File.join(__dir__, "workloads", "*.rb")].sort.filter_map do |path|
        id = File.basename(path, ".rb")
        names = mechanisms(load_workload(id))
        [id, names.sort] unless names.empty?
      end.to_h
    end

    def constant(id) = id.split("-").map(&:capitalize).join

    def load_workload(id)
      path = File.join(__dir__, "workloads", "#{id}.rb")
      raise Refusal, "workload #{id.inspect} is not implemented" unless id.match?(/\A[a-z0-9-]+\z/) && File.file?(path)
      require path
      Workloads.const_get(constant(id), false)
    end

    def begin_run
      @units = counter
      @evidence = {}
    end

    # The run's units, peak_live and evidence, once its clocks have stopped.
    def count
      units, peak_live = @units.count
      counted = { units: units, peak_live: peak_live }
      counted[:evidence] = @evidence unless @evidence.empty?
      counted
    end

    # What the run's children left in the file of children: their stamps go
    # to the run's units; the result is their private memory, as many of the
    # largest as were ever alive at once (a rate loop forks many in turn).
    # The file is emptied for the next run.
    def collect_forks
      children = File.binread(@children_path).unpack("Q<*").each_slice(3).to_a
      File.truncate(@children_path, 0)
      @units.spans(children.map { |_, start, stop| [start, stop] })
      largest = children.map(&:first).max(@most_alive)
      @most_alive = 0
      largest.sum
    end

    PRIVATE = /^Private_(?:Clean|Dirty):\s+(\d+)/

    def private_kb = File.read("/proc/self/smaps_rollup").scan(PRIVATE).sum { |(kb)| kb.to_i }

    def own_peak_kb
      File.foreach("/proc/self/status").find { |l| l.start_with?("VmHWM:") }.split[1].to_i
    end

    def runtime
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
      # JRuby's hash seed, fixed by its manifest (CRuby has no way to fix its own)
      fixed_hashing = RUBY_ENGINE == "jruby" && ENV_JAVA["jruby.consistent.hashing"] == "true"
      flags = (yjit ? ["--yjit"] : []) + (fixed_hashing ? ["jruby.consistent.hashing"] : [])
      flags += jvm_flags if RUBY_ENGINE == "jruby"
      { name: RUBY_ENGINE, version: VERSION, flags: flags + [GC_FLAG] + @flags, parallelism: parallelism }
    end

    # The CPUs the runtime sized itself to, read back from it (docs/protocol.md,
    # "CPUs"): a trial confined to k CPUs runs under an affinity mask of k,
    # and each Ruby reads that mask itself, so the kit sets nothing. CRuby's
    # Etc.nprocessors is sched_getaffinity's count (3.1 and 3.4 alike: 1
    # under taskset -c 0 on 2 cores), and it is what the worker modes count
    # their units with where workers = 0 (lib/worker_modes.rb) and what
    # Parallel.processor_count, Pbt's thread and process workers, returns.
    # JRuby's JVM sizes its GC and JIT threads, the common ForkJoinPool and
    # the scheduler of the virtual threads its fibers run on from its
    # available processors, which it reads from the mask too (and which
    # JRuby's Etc.nprocessors returns); on one CPU it also collects with its
    # serial collector instead of G1. Not sized by cores, and left as they
    # are: CRuby's GVL, and Ruby 3.4's native threads for ractors, at most
    # RUBY_MAX_CPU of them (8 unless set, whatever the machine).
    def parallelism
      return java.lang.Runtime.getRuntime.availableProcessors if RUBY_ENGINE == "jruby"
      require "etc"
      Etc.nprocessors
    end

    # JRuby's start (runtimes/jruby/Makefile): whether its JVM shares classes
    # from the build's archive (the JVM says "sharing" once it has mapped it,
    # and runs without any shared classes where the archive does not fit), and
    # whether RubyGems was left out.
    def jvm_flags
      sharing = java.lang.System.getProperty("java.vm.info").include?("sharing")
      ["class sharing #{sharing ? "on" : "off"}"] + (defined?(Gem) ? [] : ["--disable-gems"])
    end
  end
end
