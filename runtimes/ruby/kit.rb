# The Ruby kit: one trial per process, as docs/protocol.md says. It reads the
# request on stdin, runs Workloads::<Id>.<mechanism>(**params) warmup + runs
# times and prints the response as the only line of stdout.
require "json"

module Kit
  MECHANISMS = %w[thread fiber process ractor].freeze

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
      impl = load_workload(workload)
      unless MECHANISMS.include?(mechanism) && impl.respond_to?(mechanism)
        raise Refusal, "mechanism #{mechanism.inspect} is not implemented for workload #{workload.inspect}"
      end
      require "async" if mechanism == "fiber" # loaded before any run is timed
      @scratch = request.fetch("scratch")
      @memory_dir = File.join(@scratch, ".kit-memory")
      Dir.mkdir(@memory_dir)
      @forks = 0
      params = request.fetch("params").transform_keys(&:to_sym)
      warmup = request.fetch("warmup")
      largest_tree = nil
      runs = Array.new(warmup + request.fetch("runs")) do |i|
        run = measure(impl, mechanism, params)
        largest_tree = [largest_tree || 0, collect_memory].max if @forks > 0
        run.merge(warmup: i < warmup)
      end
      response = { ok: true, runtime: runtime, runs: runs }
      response[:tree_rss_kb] = own_peak_kb + largest_tree if largest_tree
      response
    end

    def load_workload(id)
      path = File.join(__dir__, "workloads", "#{id}.rb")
      raise Refusal, "workload #{id.inspect} is not implemented" unless id.match?(/\A[a-z0-9-]+\z/) && File.file?(path)
      require path
      Workloads.const_get(id.split("-").map(&:capitalize).join, false)
    end

    def measure(impl, mechanism, params)
      cpu0 = Process.times
      t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      result, units = impl.public_send(mechanism, **params)
      t1 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      cpu1 = Process.times
      { wall_ns: t1 - t0,
        user_ns: ns(cpu1.utime + cpu1.cutime - cpu0.utime - cpu0.cutime),
        sys_ns: ns(cpu1.stime + cpu1.cstime - cpu0.stime - cpu0.cstime),
        units: units, result: result }
    end

    def ns(seconds) = (seconds * 1e9).round

    # The run's children's private memory, summed; their files removed for the next run.
    def collect_memory
      files = Dir.children(@memory_dir).map { |name| File.join(@memory_dir, name) }
      files.sum { |f| File.read(f).to_i }.tap { files.each { |f| File.delete(f) } }
    end

    def private_kb
      File.foreach("/proc/self/smaps_rollup").sum { |l| l.match?(/\APrivate_(Clean|Dirty):/) ? l.split[1].to_i : 0 }
    end

    def own_peak_kb
      File.foreach("/proc/self/status").find { |l| l.start_with?("VmHWM:") }.split[1].to_i
    end

    def runtime
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
      { name: "ruby", version: RUBY_VERSION, flags: yjit ? ["--yjit"] : [] }
    end
  end
end

Kit.main
