require_relative "worker_modes"

module Workloads
  # Pbt's own worker modes (seed 001), beside WorkerModes' rebuilds of them:
  # one operation is Pbt.assert(worker: ..., num_runs: cases), as the seed's
  # benchmark scripts call it, on a property over the workload's inputs
  # (PbtCases). Pbt ignores what a predicate returns, so each one hands its
  # case's index and result back through the cheapest channel its unit has,
  # and the results are gathered in case order, as many as came back: memory
  # (none, thread), one append to a file of the run's per case (process: the
  # units are Parallel's forked workers), one message to the main ractor per
  # case (ractor). Pbt's thread and process workers are
  # Parallel.processor_count of them, its ractor worker one ractor per case:
  # `workers` must be 0 but for none, which makes no unit.
  #
  # A workload module extends WorkerModes and this (see WorkerModes); Pbt and
  # the parallel gem are loaded by these methods only, before the timing.
  module PbtModes
    def pbt_none(workers:, batch:, **params, &kit)
      pbt(:none, params, kit) do |records|
        proc { |i, x| records << [i, evaluate(x)] }
      end
    end

    # The units are Parallel's threads that ran a case (Units#task): with
    # trivial work the first may take every case before the second starts.
    def pbt_thread(workers:, batch:, **params, &kit)
      require "parallel"
      units = Kit.units
      pbt(:thread, params, kit, workers) do |records|
        proc { |i, x| units.task { records << [i, evaluate(x)] } }
      end
    end

    # Each case appends [index, result, pid, start, stop] to the run's file
    # (whole: 40 bytes with O_APPEND); a worker's unit spans its cases.
    def pbt_process(workers:, batch:, **params, &kit)
      require "parallel"
      path = File.join(Kit.scratch, "pbt-results")
      spans = []
      File.open(path, File::WRONLY | File::CREAT | File::TRUNC | File::APPEND | File::BINARY) do |out|
        predicate = proc do |i, x|
          start = Kit.stamp
          result = evaluate(x)
          out.syswrite([i, result, Process.pid, start, Kit.stamp].pack("q<5"))
        end
        gather = lambda do |_count|
          records = File.binread(path).unpack("q<*").each_slice(5).to_a
          out.truncate(0)
          records.group_by { |record| record[2] }.each_value do |own|
            spans << [own.map { |record| record[3] }.min, own.map { |record| record[4] }.max]
          end
          records.map { |i, result| [i, result] }
        end
        total = pbt(:process, params, kit, workers, gather: gather) { predicate }
        Kit.units.spans(spans)
        total
      end
    end

    # Each case's ractor stamps its start and end and sends them, with its
    # index and result, to the main ractor, which receives one per case.
    def pbt_ractor(workers:, batch:, **params, &kit)
      spans = []
      predicate = proc do |workload, i, x|
        start = Kit.stamp
        result = workload.evaluate(x)
        Ractor.main.send([i, result, start, Kit.stamp])
      end
      gather = lambda do |count|
        Array.new(count) do
          i, result, start, stop = Ractor.receive
          spans << [start, stop]
          [i, result]
        end
      end
      total = pbt(:ractor, params, kit, workers, lead: [self], gather: gather) { predicate }
      Kit.units.spans(spans)
      total
    end

    private

    # One operation per evaluation: Pbt runs the block's predicate on every
    # case with `worker`; `gather` returns the [index, result] records that
    # came back (none and thread: those the predicate kept), put in case order.
    def pbt(worker, params, kit, workers = 0, lead: [], gather: nil)
      raise Kit::Refusal, "Pbt's #{worker} worker makes its own units: workers must be 0" unless workers.zero?
      require_relative "pbt_cases"
      evaluations(params, kit) do |inputs|
        records = []
        predicate = yield records
        Pbt.assert(worker: worker, num_runs: inputs.size) { Pbt.property(PbtCases.new(inputs, *lead), &predicate) }
        records = gather.call(inputs.size) if gather
        records.sort_by!(&:first).map(&:last)
      end
    end
  end
end
