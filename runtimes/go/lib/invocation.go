package lib

import (
	"runtime"
	"sync"
	"sync/atomic"

	"concbench/go/kit"
)

// InvocationGoroutines is invoke and invoke-waiting on goroutines: one
// operation starts a goroutine whose body increments a counter (after
// yielding once with runtime.Gosched, if waits), in the way `mode` says:
//   - await: start it, wait for it, next;
//   - batch: start a batch, then wait for them all;
//   - forget: start a batch, then yield once so that they can run; what is
//     still outstanding when the time box ends is awaited then (timed).
//
// The bodies run in parallel (GOMAXPROCS threads): the counter is atomic.
func InvocationGoroutines(run *kit.Run, waits bool) error {
	batch, mode := run.Int("batch"), run.Choice("mode")
	units := run.Units()
	var count atomic.Int64
	var started sync.WaitGroup
	body := func() {
		units.Start()
		if waits {
			runtime.Gosched()
		}
		count.Add(1)
		units.Finish()
		started.Done()
	}
	switch mode {
	case "await":
		run.Rate(func() {
			for range batch {
				started.Add(1)
				go body()
				started.Wait()
			}
		})
	case "batch":
		run.Rate(func() {
			started.Add(int(batch))
			for range batch {
				go body()
			}
			started.Wait()
		})
	case "forget":
		run.Rate(func() {
			started.Add(int(batch))
			for range batch {
				go body()
			}
			runtime.Gosched()
		})
		started.Wait()
	default:
		return kit.Refuse("unknown mode %q", mode)
	}
	run.Result("count", count.Load())
	return nil
}
