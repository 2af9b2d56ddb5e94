// Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
// counter; each of `workers` goroutines, `iterations` times, locks, reads
// the group's counter, matches /foo(.+)$/ against "foobar" * 100, writes
// back the counter read plus the capture's length (597) and unlocks.
//
// The engine is Go's own regexp package (RE2: linear time, no
// backtracking), compiled before the clocks; a *Regexp is safe for
// concurrent use. contended: acquisitions whose TryLock failed, each then
// taken with Lock; each worker counts its own, summed after the wait.
package workloads

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("mutex-cpu", map[string]kit.Mechanism{"goroutine": mutexCPUGoroutine})
}

type counterGroup struct {
	lock    sync.Mutex
	counter int64 // guarded by lock
}

func mutexCPUGoroutine(run *kit.Run) error {
	groups, workers, iterations := run.Int("groups"), run.Int("workers"), run.Int("iterations")
	pattern := regexp.MustCompile(`foo(.+)$`)
	subject := strings.Repeat("foobar", 100)
	units := run.Units()
	gs := make([]counterGroup, groups)
	contended := make([]int64, groups*workers)
	failures := make([]error, groups*workers)
	run.Timed(func() {
		lib.Goroutines(units, groups*workers, func(w int64) {
			contended[w], failures[w] = matchLocked(&gs[w/workers], pattern, subject, iterations)
		})
	})
	if err := errors.Join(failures...); err != nil {
		return err
	}
	var sum int64
	for g := range gs {
		sum += gs[g].counter
	}
	run.Result("sum", sum)
	run.Evidence("contended", lib.Total(contended))
	return nil
}

// matchLocked is one worker: its acquisitions that found the lock held.
func matchLocked(group *counterGroup, pattern *regexp.Regexp, subject string, iterations int64) (int64, error) {
	var contended int64
	for range iterations {
		contended += lib.Lock(&group.lock)
		seen := group.counter
		capture := pattern.FindStringSubmatchIndex(subject)
		if capture == nil {
			group.lock.Unlock()
			return contended, errors.New("the pattern did not match")
		}
		group.counter = seen + int64(capture[3]-capture[2])
		group.lock.Unlock()
	}
	return contended, nil
}
