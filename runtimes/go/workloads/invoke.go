// Mere invocation (workloads/invoke.toml): one operation starts a unit whose
// body increments a counter and gets its result, in the way `mode` says;
// the plain call (none) is the baseline.
package workloads

import (
	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("invoke", map[string]kit.Mechanism{
		"none":      invokeNone,
		"goroutine": func(run *kit.Run) error { return lib.InvocationGoroutines(run, false) },
	})
}

func increment(count *int64) { *count++ }

// plainCall is a variable, so that each call goes through it: the compiler
// can neither inline the body nor fold the loop into one addition.
var plainCall = increment

// The body called in place, the same call in every mode.
func invokeNone(run *kit.Run) error {
	batch := run.Int("batch")
	var count int64
	run.Rate(func() {
		for range batch {
			plainCall(&count)
		}
	})
	run.Result("count", count)
	return nil
}
