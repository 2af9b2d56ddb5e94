package lib

import (
	"runtime"

	"concbench/go/kit"
)

// A Map evaluates a list of inputs, its results in the inputs' order.
type Map[In, Out any] func(inputs []In) []Out

// WorkerModeMechanisms are a map workload's mechanisms: its function, which
// calls WorkerModes, for each worker mode.
func WorkerModeMechanisms(workload func(run *kit.Run, mechanism string) error) map[string]kit.Mechanism {
	mechanisms := map[string]kit.Mechanism{}
	for _, mode := range []string{"none", "goroutine"} {
		mechanisms[mode] = func(run *kit.Run) error { return workload(run, mode) }
	}
	return mechanisms
}

// WorkerModes runs map-trivial, map-cpu, map-io and map-shrink, Pbt's
// worker modes (seed 001), alike for every mechanism: one operation is one
// evaluation, which the workload's evaluation function makes with the
// mechanism's Map of its evaluate function. The kit's loop runs `batch`
// evaluations a batch.
func WorkerModes[In, Out any](run *kit.Run, mechanism string, evaluate func(In) Out, evaluation func(Map[In, Out])) error {
	var apply Map[In, Out]
	switch mechanism {
	case "none": // Pbt's worker: :none, the baseline: the cases in place, in order
		apply = func(inputs []In) []Out {
			results := make([]Out, len(inputs))
			for i, input := range inputs {
				results[i] = evaluate(input)
			}
			return results
		}
	case "goroutine":
		apply = striped(run, evaluate)
	default:
		return kit.Refuse("no worker mode %q", mechanism)
	}
	batch := run.Int("batch")
	run.Rate(func() {
		for range batch {
			evaluation(apply)
		}
	})
	return nil
}

// striped makes its units for each evaluation: `workers` goroutines (0: one
// per core), no more than there are cases (as Parallel.map, which Pbt
// calls, does); unit w of n evaluates the cases w, w + n, ..., each result
// written into its case's slot.
func striped[In, Out any](run *kit.Run, evaluate func(In) Out) Map[In, Out] {
	workers := run.Int("workers")
	if workers == 0 {
		workers = int64(runtime.NumCPU())
	}
	units := run.Units()
	return func(inputs []In) []Out {
		results := make([]Out, len(inputs))
		n := min(workers, int64(len(inputs)))
		Goroutines(units, n, func(w int64) {
			for i := w; i < int64(len(inputs)); i += n {
				results[i] = evaluate(inputs[i])
			}
		})
		return results
	}
}
