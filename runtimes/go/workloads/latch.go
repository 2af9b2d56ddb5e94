// Countdown latch (workloads/latch.toml): `count` units made at the start of
// a run serve all its rounds; in each of `rounds` rounds the caller makes a
// latch of `count`, asks every unit to count it down once, and waits until
// it reaches zero. Unit k adds (k + 1) x (r + 1) for its count-down in round
// r to a tally of its own; the tallies are summed modulo 1,000,000,007.
package workloads

import (
	"sync"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("latch", map[string]kit.Mechanism{"goroutine": latchGoroutine})
}

// The latch is a sync.WaitGroup, Go's count-down latch; each unit gets its
// rounds on a channel of its own, and closing it stops the unit.
func latchGoroutine(run *kit.Run) error {
	count, rounds := run.Int("count"), run.Int("rounds")
	units := run.Units()
	asks := make([]chan *sync.WaitGroup, count)
	tallies := make([]int64, count)
	countdowns := make([]int64, count)
	var stopped sync.WaitGroup
	stopped.Add(int(count))
	for k := range asks {
		asks[k] = make(chan *sync.WaitGroup, 1)
		go func() {
			defer stopped.Done()
			units.Start()
			var tally, made int64
			for latch := range asks[k] {
				made++
				tally = (tally + int64(k+1)*made) % modulus // made is r + 1
				latch.Done()
			}
			tallies[k], countdowns[k] = tally, made
			units.Finish()
		}()
	}
	var woke int64
	for range rounds {
		var latch sync.WaitGroup
		latch.Add(int(count))
		for _, ask := range asks {
			ask <- &latch
		}
		latch.Wait()
		woke++
	}
	for _, ask := range asks {
		close(ask)
	}
	stopped.Wait()
	var checksum int64
	for _, tally := range tallies {
		checksum = (checksum + tally) % modulus
	}
	run.Result("rounds", woke)
	run.Result("countdowns", lib.Total(countdowns))
	run.Result("checksum", checksum)
	return nil
}
