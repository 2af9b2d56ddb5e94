// Mutex, CPU-bound (workloads/mutex-cpu.toml): per group one mutex and one
// counter; each of `workers` goroutines, `iterations` times, its iteration
// i counting from 0, makes the subject "foobar" * 100 followed by i in
// decimal, locks, reads the group's counter, matches /foo(.+)$/ against the
// subject, writes back the counter read plus the capture's length (597 plus
// i's digits) and unlocks. The subject is a new string each iteration
// (prefix + strconv.FormatInt(i, 10)), made before the lock is taken.
//
// The engine is Go's own regexp package (RE2: linear time, no
// backtracking), compiled before the clocks; a *Regexp is safe for
// concurrent use. contended: acquisitions whose TryLock failed, each then
// taken with Lock; each worker counts its own, summed after the wait.
package workloads

import (
	"errors"
	"regexp"
	"strconv"
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
	prefix := strings.Repeat("foobar", 100)
	units := run.Units()
	gs := make([]counterGroup, groups)
	contended := make([]int64, groups*workers)
	failures := make([]error, groups*workers)
	run.Timed(func() {
		lib.Goroutines(units, groups*workers, func(w int64) {
			contended[w], failures[w] = matchLocked(&gs[w/workers], pattern, prefix, iterations)
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
func matchLocked(group *counterGroup, pattern *regexp.Regexp, prefix string, iterations int64) (int64, error) {
	var contended int64
	for i := range iterations {
		subject := prefix + strconv.FormatInt(i, 10)
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
