// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one
// and sum the values.
package workloads

import "concbench/go/kit"

func init() {
	kit.Register("future", map[string]kit.Mechanism{"none": futureNone, "goroutine": futureGoroutine})
}

func futureValue(i int64) int64 { return i * i % 1000 }

// The values computed in place, one after another.
func futureNone(run *kit.Run) error {
	var sum int64
	for i := range run.Int("futures") {
		sum += futureValue(i)
	}
	run.Result("sum", sum)
	return nil
}

// Go's future: a goroutine that sends its value on a channel of its own
// with room for it, so that it ends without waiting for the caller.
func futureGoroutine(run *kit.Run) error {
	futures := run.Int("futures")
	units := run.Units()
	values := make([]chan int64, futures)
	for i := range values {
		values[i] = make(chan int64, 1)
		go func() {
			units.Start()
			value := futureValue(int64(i))
			units.Finish() // before the send: once the caller has every value, the run is over
			values[i] <- value
		}()
	}
	var sum int64
	for _, value := range values {
		sum += <-value
	}
	run.Result("sum", sum)
	return nil
}
