# The Ruby kit: one trial per process, as docs/protocol.md says. It reads the
# request on stdin, runs Workloads::<Id>.<mechanism>(**params) warmup + runs
# times and prints the response as the only line of stdout.
#
# A fixed workload's mechanism does the whole job and returns [result, units].
# A rate workload's mechanism sets up, then yields its operation (a callable)
# and optionally what ends a batch; the kit runs batches of `batch`
# operations until `seconds` have passed; the mechanism then awaits what is
# outstanding and returns [result, units].
# Yielding lets a mechanism keep the kit's loop inside its own context (a
# fiber scheduler's reactor, say) while its setup stays outside the timing.
#
# A workload module may define prepare(**params): the kit calls it once, before
# the first run, for inputs that the spec makes before the timing (a table to
# look up, say); it is not timed.
#
# A mechanism's library (LIBRARIES) is loaded before the workload's file and
# the first run, and only for that mechanism's trials (loading celluloid sets
# up its actor system and its shutdown at exit; concurrent-ruby starts a
# timer thread): a workload file defines the classes that need the library
# (actors) only `if defined?` it.
require "json"

module Kit
  MECHANISMS = %w[none raw_fiber thread fiber process ractor celluloid concurrent].freeze
  LIBRARIES = { "fiber" => "async", "celluloid" => "celluloid", "concurrent" => "concurrent-edge" }.freeze
  # Parameters of the kit's rate loop, not of the mechanism.
  LOOP_PARAMS = %i[seconds gc].freeze

  # A request the kit cannot serve: a clean refusal, not a failure.
  class Refusal < StandardError; end

  class << self
    # The trial's scratch directory, for the workloads' files.
    attr_reader :scratch

    # Runs the block in a forked child, which then leaves its private memory
    # (kB) in a file of its own for the kit to add up after the run: files
    # cannot fill up and block the child the way a pipe nobody reads would.
    # Returns the pid; the workload reaps it (wait below).
    def fork
      @forks += 1
      @alive += 1
      @most_alive = @alive if @alive > @most_alive
      path = File.join(@memory_dir, @forks.to_s)
      Process.fork do
        begin
          yield
          File.write(path, private_kb.to_s)
        rescue Exception => e
          warn e.full_message
          exit!(1)
        end
        exit!(0)
      end
    end

    # Reaps the children, failing the run if one of them failed.
    def wait(pids)
      pids.each do |pid|
        _, status = Process.waitpid2(pid)
        @alive -= 1
        raise "child #{pid} failed: #{status}" unless status.success?
      end
    end

    def main
      response_out = STDOUT.dup
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
      response_out.puts(JSON.generate(response))
      response_out.flush
      exit(code)
    end

    private

    def serve(request)
      workload, mechanism = request.fetch("workload"), request.fetch("mechanism")
      load_library(mechanism) # first: a workload defines its actor classes only if their library is loaded
      impl = load_workload(workload)
      unless MECHANISMS.include?(mechanism) && impl.respond_to?(mechanism)
        raise Refusal, "mechanism #{mechanism.inspect} is not implemented for workload #{workload.inspect}"
      end
      @scratch = request.fetch("scratch")
      @memory_dir = File.join(@scratch, ".kit-memory")
      Dir.mkdir(@memory_dir)
      @forks = @alive = @most_alive = 0
      params = request.fetch("params").transform_keys(&:to_sym)
      rate = request.fetch("kind", "fixed") == "rate"
      loop_params = rate ? params.slice(*LOOP_PARAMS) : {}
      params = params.except(*LOOP_PARAMS) if rate
      @flags = []
      if loop_params[:gc] == "off"
        GC.disable # as the Concurrently seed does; recorded in the flags
        @flags << "gc=off"
      end
      impl.prepare(**params) if impl.respond_to?(:prepare)
      warmup = request.fetch("warmup")
      largest_tree = nil
      runs = Array.new(warmup + request.fetch("runs")) do |i|
        run = rate ? measure_rate(impl, mechanism, params, loop_params.fetch(:seconds)) : measure(impl, mechanism, params)
        largest_tree = [largest_tree || 0, collect_memory].max if @forks > 0
        run.merge(warmup: i < warmup)
      end
      response = { ok: true, runtime: runtime, runs: runs }
      response[:tree_rss_kb] = own_peak_kb + largest_tree if largest_tree
      response
    end

    def load_library(mechanism)
      return unless (library = LIBRARIES[mechanism])
      require library
      # Celluloid logs at debug level by default (every actor it terminates at
      # exit), and 0.16 warns each time a pool is terminated that it killed the
      # pool's finalizer (celluloid#542; pool.rb makes up for it): errors only.
      Celluloid.logger.level = Logger::ERROR if mechanism == "celluloid"
    end

    def load_workload(id)
      path = File.join(__dir__, "workloads", "#{id}.rb")
      raise Refusal, "workload #{id.inspect} is not implemented" unless id.match?(/\A[a-z0-9-]+\z/) && File.file?(path)
      require path
      Workloads.const_get(id.split("-").map(&:capitalize).join, false)
    end

    def measure(impl, mechanism, params)
      start = clocks
      result, units = impl.public_send(mechanism, **params)
      since(start).merge(units: units, result: result)
    end

    # The timed region starts when the mechanism yields its operation and ends
    # when it returns. The loop reads the clock once per batch and does nothing
    # else, so that it costs almost nothing next to a bare hand-written loop
    # (fidelity.rb measures the difference).
    def measure_rate(impl, mechanism, params, seconds)
      batch = params.fetch(:batch)
      start = nil
      batches = 0
      result, units = impl.public_send(mechanism, **params) do |operation, end_of_batch = nil|
        start = clocks
        deadline = start.wall + ns(seconds)
        begin
          i = 0
          while i < batch
            operation.call # no argument: passing one would cost 7% of a plain call
            i += 1
          end
          end_of_batch&.call
          batches += 1
        end while Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) < deadline
      end
      raise "the mechanism did not run the timed loop" unless start
      since(start).merge(units: units, result: result, ops: batches * batch)
    end

    Clocks = Struct.new(:wall, :cpu)

    def clocks
      cpu = Process.times
      Clocks.new(Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond), cpu)
    end

    def since(start)
      wall = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      cpu = Process.times
      { wall_ns: wall - start.wall,
        user_ns: ns(cpu.utime + cpu.cutime - start.cpu.utime - start.cpu.cutime),
        sys_ns: ns(cpu.stime + cpu.cstime - start.cpu.stime - start.cpu.cstime) }
    end

    def ns(seconds) = (seconds * 1e9).round

    # The private memory of the run's children, as many of the largest as were
    # ever alive at once (a rate loop forks many in turn); their files are
    # removed for the next run.
    def collect_memory
      files = Dir.children(@memory_dir).map { |name| File.join(@memory_dir, name) }
      largest = files.map { |f| File.read(f).to_i }.max(@most_alive)
      files.each { |f| File.delete(f) }
      @most_alive = 0
      largest.sum
    end

    def private_kb
      File.foreach("/proc/self/smaps_rollup").sum { |l| l.match?(/\APrivate_(Clean|Dirty):/) ? l.split[1].to_i : 0 }
    end

    def own_peak_kb
      File.foreach("/proc/self/status").find { |l| l.start_with?("VmHWM:") }.split[1].to_i
    end

    def runtime
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
      { name: "ruby", version: RUBY_VERSION, flags: (yjit ? ["--yjit"] : []) + @flags }
    end
  end
end

Kit.main if $PROGRAM_NAME == __FILE__
