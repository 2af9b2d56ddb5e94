// Pool (workloads/pool.toml): a pool of `pool_size` workers serves `jobs`
// jobs; job j looks up key j mod `keys` in a table made before the timing
// (key k holds 2k + 1) and returns its value. All jobs are submitted, then
// all are awaited, and the values summed.
package workloads

import (
	"sync"

	"concbench/go/kit"
)

func init() {
	kit.Register("pool", map[string]kit.Mechanism{"none": poolNone, "goroutine": poolGoroutine})
}

// poolTable is the table the jobs look up, made before the timing.
func poolTable(keys int64) map[int64]int64 {
	table := make(map[int64]int64, keys)
	for k := range keys {
		table[k] = 2*k + 1
	}
	return table
}

// The jobs called in place, one after another.
func poolNone(run *kit.Run) error {
	jobs, keys := run.Int("jobs"), run.Int("keys")
	table := poolTable(keys)
	var sum int64
	run.Timed(func() {
		for job := range jobs {
			sum += table[job%keys]
		}
	})
	run.Result("sum", sum)
	return nil
}

// Go's worker pool: `pool_size` goroutines ranging over a channel of jobs,
// each job's value written into its own slot. The channel has room for
// every job, so that submitting never waits for a worker; closing it once
// all are submitted ends the workers, and waiting for them awaits the jobs.
func poolGoroutine(run *kit.Run) error {
	poolSize, jobs, keys := run.Int("pool_size"), run.Int("jobs"), run.Int("keys")
	table := poolTable(keys)
	units := run.Units()
	values := make([]int64, jobs)
	run.Timed(func() {
		queue := make(chan int64, jobs)
		var done sync.WaitGroup
		done.Add(int(poolSize))
		for range poolSize {
			go func() {
				defer done.Done()
				units.Start()
				for job := range queue {
					values[job] = table[job%keys]
				}
				units.Finish()
			}()
		}
		for job := range jobs {
			queue <- job
		}
		close(queue)
		done.Wait()
	})
	var sum int64
	for _, value := range values {
		sum += value
	}
	run.Result("sum", sum)
	return nil
}
