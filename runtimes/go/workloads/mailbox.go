// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox, which holds at most
// `capacity` messages; the receiver takes exactly `messages`, counting and
// summing them and adding k x payload of its k-th message to a checksum
// modulo 1,000,000,007, and hands its totals back to the caller.
package workloads

import (
	"sync"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("mailbox", map[string]kit.Mechanism{"goroutine": mailboxGoroutine})
}

const modulus = 1_000_000_007

// The mailbox is a buffered channel of `capacity` messages (for capacity 0,
// no bound: room for them all, lib.Room). blocked: sends that found it full
// and takes that found it empty (lib.Send, lib.Receive).
func mailboxGoroutine(run *kit.Run) error {
	messages, capacity := run.Int("messages"), run.Int("capacity")
	units := run.Units()
	mailbox := make(chan int64, lib.Room(capacity, messages))
	var sent, taken int64 // the blocked counts of each unit
	var count, sum, ordered int64
	var done sync.WaitGroup
	done.Add(2)
	go func() {
		defer done.Done()
		units.Start()
		for payload := int64(1); payload <= messages; payload++ {
			sent += lib.Send(mailbox, payload)
		}
		units.Finish()
	}()
	go func() {
		defer done.Done()
		units.Start()
		for k := int64(1); k <= messages; k++ {
			payload, waited, _ := lib.Receive(mailbox)
			taken += waited
			count++
			sum += payload
			ordered = (ordered + k%modulus*(payload%modulus)) % modulus
		}
		units.Finish()
	}()
	done.Wait()
	run.Result("count", count)
	run.Result("sum", sum)
	run.Result("ordered", ordered)
	run.Evidence("blocked", sent+taken)
	return nil
}
