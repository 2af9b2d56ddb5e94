// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
// `first` adds up f, `minimal` the upper bounds it ends with (101 each), and
// `candidates` the candidates the units evaluated.
package workloads

import (
	"errors"
	"slices"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() { kit.Register("map-shrink", lib.WorkerModeMechanisms(mapShrink)) }

func mapShrink(run *kit.Run, mechanism string) error {
	inputs := lib.Draws(run.Int("cases"), -1_000_000, 1_000_000)
	holds := func(x int64) bool { return x <= 100 }
	var first, minimal, candidates int64
	var failed error
	err := lib.WorkerModes(run, mechanism, holds, func(apply lib.Map[int64, bool]) {
		f := slices.Index(apply(inputs), false)
		if f < 0 {
			failed = errors.New("none of the cases fails the property")
			return
		}
		least, evaluated := shrink(inputs[f], apply)
		first, minimal, candidates = first+int64(f), minimal+least, candidates+evaluated
	})
	run.Result("first", first)
	run.Result("minimal", minimal)
	run.Result("candidates", candidates)
	if err == nil {
		err = failed
	}
	return err
}

// shrink bisects between 0 and the failing value: the least failing value,
// and the candidates evaluated.
func shrink(failing int64, apply lib.Map[int64, bool]) (least, evaluated int64) {
	var passing int64
	for failing-passing > 1 {
		var candidates []int64
		for k := int64(1); k <= 8; k++ {
			candidate := passing + (failing-passing)*k/9
			if candidate != passing && !slices.Contains(candidates, candidate) {
				candidates = append(candidates, candidate)
			}
		}
		held := apply(candidates)
		evaluated += int64(len(held))
		failed := slices.Index(held, false)
		if failed < 0 {
			failed = len(candidates) // every candidate passes
		}
		if failed > 0 {
			passing = candidates[failed-1]
		}
		if failed < len(candidates) {
			failing = candidates[failed]
		}
	}
	return failing, evaluated
}
