// Queue (workloads/queue.toml): per group one queue; its `producers` units
// each push 1..`items`, and once every producer is done, one stop token
// per consumer is pushed (by the producer that finished last); its
// `consumers` units pop until they get a stop token, counting and summing
// what they popped.
//
// The queue is a buffered channel of `capacity` items (for capacity 0, no
// bound: room for everything the group pushes, lib.Room). blocked: pushes
// that found the channel full and pops that found it empty (lib.Send and
// lib.Receive), each unit counting its own.
package workloads

import (
	"sync"
	"sync/atomic"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("queue", map[string]kit.Mechanism{"goroutine": queueGoroutine})
}

const stopToken = 0 // items are 1..items

type queueGroup struct {
	items     chan int64
	producing atomic.Int64 // producers not yet done
	count     []int64      // per consumer, stored as it stops
	sum       []int64      // per consumer, stored as it stops
}

func queueGoroutine(run *kit.Run) error {
	groups, producers, consumers := run.Int("groups"), run.Int("producers"), run.Int("consumers")
	items, capacity := run.Int("items"), run.Int("capacity")
	units := run.Units()
	gs := make([]queueGroup, groups)
	blocked := make([]int64, groups*(producers+consumers))
	var done sync.WaitGroup
	done.Add(int(groups * (producers + consumers)))
	for g := range gs {
		group := &gs[g]
		*group = queueGroup{items: make(chan int64, lib.Room(capacity, producers*items+consumers)), count: make([]int64, consumers), sum: make([]int64, consumers)}
		group.producing.Store(producers)
		unit := int64(g) * (producers + consumers)
		for p := range producers {
			go func() {
				defer done.Done()
				units.Start()
				blocked[unit+p] = produce(group, items, consumers)
				units.Finish()
			}()
		}
		for c := range consumers {
			go func() {
				defer done.Done()
				units.Start()
				group.count[c], group.sum[c], blocked[unit+producers+c] = consume(group)
				units.Finish()
			}()
		}
	}
	done.Wait()
	var count, sum int64
	for g := range gs {
		count += lib.Total(gs[g].count)
		sum += lib.Total(gs[g].sum)
	}
	run.Result("count", count)
	run.Result("sum", sum)
	run.Evidence("blocked", lib.Total(blocked))
	return nil
}

// produce pushes 1..items, and the stop tokens if it finished last; the
// pushes that found the channel full.
func produce(group *queueGroup, items, consumers int64) (blocked int64) {
	for value := int64(1); value <= items; value++ {
		blocked += lib.Send(group.items, value)
	}
	if group.producing.Add(-1) == 0 {
		for range consumers {
			blocked += lib.Send(group.items, stopToken)
		}
	}
	return blocked
}

// consume pops until a stop token: the count and sum of what it popped, and
// the pops that found the channel empty.
func consume(group *queueGroup) (count, sum, blocked int64) {
	for {
		value, waited, _ := lib.Receive(group.items)
		blocked += waited
		if value == stopToken {
			return count, sum, blocked
		}
		count++
		sum += value
	}
}
