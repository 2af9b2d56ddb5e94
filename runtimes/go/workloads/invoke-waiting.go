// Waiting inside concurrent units (workloads/invoke-waiting.toml): as
// invoke, but each body yields to its scheduler once (runtime.Gosched)
// before it increments the counter.
package workloads

import (
	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("invoke-waiting", map[string]kit.Mechanism{
		"goroutine": func(run *kit.Run) error { return lib.InvocationGoroutines(run, true) },
	})
}
