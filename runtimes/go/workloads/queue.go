// Queue (workloads/queue.toml): per group one queue; its `producers` units
// each push 1..`items`, and once every producer is done, one stop token
// per consumer is pushed (by the producer that finished last); its
// `consumers` units pop until they get a stop token, counting and summing
// what they popped.
//
// The queue is a buffered channel of `capacity` items. A channel always has
// a bound: for capacity 0 (no bound, the seed's) it has room for everything
// the group pushes, so that no push waits, as with an unbounded queue.
// blocked: pushes that found the channel full and pops that found it empty
// (a select with a default case first), each then made as a blocking send
// or receive; each unit counts its own.
package workloads

import (
	"sync"
	"sync/atomic"

	"concbench/go/kit"
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
	if capacity == 0 {
		capacity = producers*items + consumers
	}
	units := run.Units()
	gs := make([]queueGroup, groups)
	blocked := make([]int64, groups*(producers+consumers))
	var done sync.WaitGroup
	done.Add(int(groups * (producers + consumers)))
	for g := range gs {
		group := &gs[g]
		*group = queueGroup{items: make(chan int64, capacity), count: make([]int64, consumers), sum: make([]int64, consumers)}
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
		count += total(gs[g].count)
		sum += total(gs[g].sum)
	}
	run.Result("count", count)
	run.Result("sum", sum)
	run.Evidence("blocked", total(blocked))
	return nil
}

// produce pushes 1..items, and the stop tokens if it finished last; the
// pushes that found the channel full.
func produce(group *queueGroup, items, consumers int64) (blocked int64) {
	for value := int64(1); value <= items; value++ {
		blocked += push(group.items, value)
	}
	if group.producing.Add(-1) == 0 {
		for range consumers {
			blocked += push(group.items, stopToken)
		}
	}
	return blocked
}

// consume pops until a stop token: the count and sum of what it popped, and
// the pops that found the channel empty.
func consume(group *queueGroup) (count, sum, blocked int64) {
	for {
		var value int64
		select {
		case value = <-group.items:
		default:
			blocked++
			value = <-group.items
		}
		if value == stopToken {
			return count, sum, blocked
		}
		count++
		sum += value
	}
}

// push sends value; 1 if the channel was full, so that the send waited.
func push(items chan<- int64, value int64) int64 {
	select {
	case items <- value:
		return 0
	default:
		items <- value
		return 1
	}
}
