// Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
// next. The first starts a token at count 0; every pass adds one. When the
// token reaches the first unit for the `laps`-th time, the first unit stops
// it and reports its count; then every unit is stopped and awaited.
package workloads

import (
	"sync"

	"concbench/go/kit"
)

func init() {
	kit.Register("ring", map[string]kit.Mechanism{"goroutine": ringGoroutine})
}

// Go's classic thread-ring: a goroutine per node, each receiving the token
// on an unbuffered channel of its own and sending it on to the next node's;
// closing a node's channel stops it.
func ringGoroutine(run *kit.Run) error {
	nodes, laps := run.Int("nodes"), run.Int("laps")
	units := run.Units()
	inbox := make([]chan int64, nodes)
	for i := range inbox {
		inbox[i] = make(chan int64)
	}
	var done sync.WaitGroup
	done.Add(int(nodes))
	for i := int64(1); i < nodes; i++ {
		go func() {
			defer done.Done()
			units.Start()
			next := inbox[(i+1)%nodes]
			for count := range inbox[i] {
				next <- count + 1
			}
			units.Finish()
		}()
	}
	var hops int64
	go func() {
		defer done.Done()
		units.Start()
		inbox[1] <- 1
		for lap := int64(1); ; lap++ {
			count := <-inbox[0]
			if lap == laps {
				hops = count
				break
			}
			inbox[1] <- count + 1
		}
		units.Finish()
		for _, channel := range inbox[1:] {
			close(channel)
		}
	}()
	done.Wait()
	run.Result("hops", hops)
	return nil
}
