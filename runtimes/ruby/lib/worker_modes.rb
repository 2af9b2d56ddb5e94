require "etc"
require_relative "lcg"

module Workloads
  # map-trivial, map-cpu, map-io and map-shrink: Pbt's worker modes (seed 001),
  # done alike for every mechanism. One operation is one evaluation of the
  # cases; every mode but none makes its units for each evaluation: `workers`
  # of them (0: one per CPU the trial may use, Etc.nprocessors), no more than
  # there are cases (as Parallel.map, which Pbt calls, does), unit w of n
  # evaluating the cases w, w + n, ...; the results are gathered in case
  # order, as many as the units returned.
  # The units count themselves (Kit.units), are stamped by Kit.fork, or stamp
  # themselves (ractors).
  #
  # A workload module extends this and defines
  #   setup(cases:, ...)         the cases' inputs, made before the timing;
  #   evaluate(input)            one case: a module method, so that ractors can call it;
  #   evaluation(inputs, total)  one operation: it maps lists of inputs to their
  #                              results with the block, and adds its figures to total.
  # The modes take `batch` only because the kit passes it on: it runs the batch.
  module WorkerModes
    # Pbt's worker: :none, the baseline: the cases in place, in order.
    def none(workers:, batch:, **params, &kit)
      evaluations(params, kit) { |inputs| inputs.map { |x| evaluate(x) } }
    end

    def thread(workers:, batch:, **params, &kit)
      units = Kit.units
      striped(workers, params, kit, :value) { |inputs, w, n| Thread.new { units.unit { evaluate_stripe(inputs, w, n) } } }
    end

    # Tasks under the async gem: the kit's loop runs inside Sync's reactor.
    def fiber(workers:, batch:, **params, &kit)
      units = Kit.units
      Kit.sync do |task|
        striped(workers, params, kit, :wait) { |inputs, w, n| task.async { units.unit { evaluate_stripe(inputs, w, n) } } }
      end
    end

    def process(workers:, batch:, **params, &kit)
      striped(workers, params, kit, :value) { |inputs, w, n| Forked.new { evaluate_stripe(inputs, w, n) } }
    end

    # A ractor reaches the workload's methods through the module, an argument;
    # it stamps its own start and end and returns them with its results.
    def ractor(workers:, batch:, **params, &kit)
      spans = []
      take = proc { |ractor| start, results, stop = ractor.take; spans << [start, stop]; results }
      total = striped(workers, params, kit, take) do |inputs, w, n|
        Ractor.new(self, inputs, w, n) { |workload, *stripe| [Kit.stamp, workload.evaluate_stripe(*stripe), Kit.stamp] }
      end
      Kit.units.spans(spans)
      total
    end

    # Unit w's share of n: the cases w, w + n, w + 2n, ... (public: ractors call it on the module)
    def evaluate_stripe(inputs, w, n) = w.step(inputs.size - 1, n).map { |i| evaluate(inputs[i]) }

    # A forked unit: its results come back Marshal'd through a pipe of its own.
    class Forked
      def initialize
        @reader, writer = IO.pipe
        @pid = Kit.fork { @reader.close; writer.write(Marshal.dump(yield)) }
        writer.close # the child's is the only write end left: its exit ends the stream
      end

      def value
        Marshal.load(@reader.read)
      ensure
        @reader.close
        Kit.wait([@pid])
      end
    end

    private

    # The modes with units: the block starts unit w of n on the inputs;
    # `await` (a method name or a proc) returns its stripe's results. The
    # results gathered are as many as the units returned.
    def striped(workers, params, kit, await)
      workers = Etc.nprocessors if workers.zero?
      evaluations(params, kit) do |inputs|
        n = [workers, inputs.size].min
        stripes = Array.new(n) { |w| yield inputs, w, n }.map(&await)
        Array.new(stripes.sum(&:size)) { |i| stripes[i % n][i / n] }
      end
    end

    # Makes the inputs (shareable where there are ractors, which take them
    # without a copy; JRuby has none), then hands the kit one evaluation per
    # operation, `map` evaluating a list of inputs in order. Returns the
    # figures summed over the run.
    def evaluations(params, kit, &map)
      inputs = defined?(Ractor) ? Ractor.make_shareable(setup(**params)) : setup(**params)
      total = Hash.new(0)
      kit.call(proc { evaluation(inputs, total, &map) })
      total
    end
  end
end
