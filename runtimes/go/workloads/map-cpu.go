// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), 55,229 calls that return 9; the unit that
// evaluates a case multiplies, so evaluating the wrong cases gives a wrong sum.
package workloads

import (
	"concbench/go/kit"
	"concbench/go/lib"
)

func init() { kit.Register("map-cpu", lib.WorkerModeMechanisms(mapCPU)) }

func tarai(x, y, z int64) int64 {
	if x <= y {
		return y
	}
	return tarai(tarai(x-1, y, z), tarai(y-1, z, x), tarai(z-1, x, y))
}

func mapCPU(run *kit.Run, mechanism string) error {
	cases := run.Int("cases")
	inputs := make([]int64, cases)
	for i := range inputs {
		inputs[i] = int64(i)
	}
	evaluate := func(i int64) int64 { return (i + 1) * tarai(9, 4, 0) }
	var sum int64
	err := lib.WorkerModes(run, mechanism, evaluate, func(apply lib.Map[int64, int64]) {
		sum += lib.Total(apply(inputs))
	})
	run.Result("sum", sum)
	return err
}
