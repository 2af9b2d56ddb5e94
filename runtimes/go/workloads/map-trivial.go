// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1;
// the result is the sum.
package workloads

import (
	"concbench/go/kit"
	"concbench/go/lib"
)

func init() { kit.Register("map-trivial", lib.WorkerModeMechanisms(mapTrivial)) }

func mapTrivial(run *kit.Run, mechanism string) error {
	inputs := lib.Draws(run.Int("cases"), -1_000_000, 1_000_000)
	var sum int64
	err := lib.WorkerModes(run, mechanism, func(x int64) int64 { return x + 1 }, func(apply lib.Map[int64, int64]) {
		sum += lib.Total(apply(inputs))
	})
	run.Result("sum", sum)
	return err
}
