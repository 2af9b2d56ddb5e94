// Mere waiting: wait 0 (workloads/yield.toml): one operation, the measured
// unit yields to its scheduler and is resumed; `partners` more units yield
// in a loop beside it. Every unit adds one to a shared turn counter each
// time it runs; a yield after which the counter has moved is switched.
package workloads

import (
	"runtime"
	"sync"
	"sync/atomic"

	"concbench/go/kit"
)

func init() {
	kit.Register("yield", map[string]kit.Mechanism{"goroutine": yieldGoroutine})
}

// The measured unit is the goroutine running the kit's loop; a yield is
// runtime.Gosched. Go's scheduler is no code of ours, so only the units
// move the counter.
//
// The trial runs on one processor (GOMAXPROCS=1, in its flags), as
// c/pthread pins its threads to one CPU: with a processor each, a partner
// would bump the counter in parallel, and yields that switched nothing
// would count as switched.
func yieldGoroutine(run *kit.Run) error {
	batch, partners := run.Int("batch"), run.Int("partners")
	runtime.GOMAXPROCS(1)
	units := run.Units()
	var turn atomic.Int64
	var stop atomic.Bool
	var stopped sync.WaitGroup
	stopped.Add(int(partners))
	for range partners {
		go func() {
			defer stopped.Done()
			units.Start()
			for !stop.Load() {
				turn.Add(1)
				runtime.Gosched()
			}
			units.Finish()
		}()
	}
	units.Start()
	var yields, switched int64
	run.Rate(func() {
		for range batch {
			seen := turn.Add(1)
			runtime.Gosched()
			yields++
			if turn.Load() != seen {
				switched++
			}
		}
	})
	units.Finish()
	stop.Store(true)
	stopped.Wait()
	run.Result("count", yields)
	run.Evidence("switched", switched)
	return nil
}
