// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` if that is more than 0, then returns i; await them all
// and sum what they returned.
package workloads

import (
	"time"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("spawn", map[string]kit.Mechanism{"goroutine": spawnGoroutine})
}

// One goroutine per task, awaited with a WaitGroup; each writes what it
// returns into its own slot.
func spawnGoroutine(run *kit.Run) error {
	tasks, delay := run.Int("tasks"), time.Duration(run.Int("delay_ms"))*time.Millisecond
	units := run.Units()
	returned := make([]int64, tasks)
	lib.Goroutines(units, tasks, func(i int64) {
		if delay > 0 {
			time.Sleep(delay)
		}
		returned[i] = i
	})
	var sum int64
	for _, value := range returned {
		sum += value
	}
	run.Result("sum", sum)
	return nil
}
