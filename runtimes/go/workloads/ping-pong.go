// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once; in
// each pair a pinger sends a count, starting at 0, to its ponger, which sends
// back the count plus one; the pinger sends that count plus one again, until
// it has had `rounds` replies. Each pinger then stops its ponger and reports
// the last count it received; the caller awaits every unit and sums them.
package workloads

import (
	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("ping-pong", map[string]kit.Mechanism{"goroutine": pingPongGoroutine})
}

// As ring's goroutines: per pair two unbuffered channels, one each way, so
// that every message is a hand-off from one goroutine to the other; closing
// the ponger's channel stops it. Goroutine 2p is pair p's pinger, 2p + 1 its
// ponger.
func pingPongGoroutine(run *kit.Run) error {
	pairs, rounds := run.Int("pairs"), run.Int("rounds")
	pings := make([]chan int64, pairs)
	pongs := make([]chan int64, pairs)
	for p := range pairs {
		pings[p], pongs[p] = make(chan int64), make(chan int64)
	}
	last := make([]int64, pairs) // each pinger's last count
	lib.Goroutines(run.Units(), 2*pairs, func(i int64) {
		ping, pong := pings[i/2], pongs[i/2]
		if i%2 == 1 {
			for count := range ping {
				pong <- count + 1
			}
			return
		}
		var send, received int64
		for range rounds {
			ping <- send
			received = <-pong
			send = received + 1
		}
		close(ping)
		last[i/2] = received
	})
	run.Result("count", lib.Total(last))
	return nil
}
