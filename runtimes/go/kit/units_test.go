package kit

import (
	"sync"
	"testing"
)

// BenchmarkCounting measures what counting units costs where it weighs most:
// a goroutine started and awaited per operation (invoke's goroutine cell in
// mode await), its body with and without Start and Finish. run.go quotes it:
//
//	cd runtimes/go && go test -run '^$' -bench Counting -count 10 ./kit
func BenchmarkCounting(b *testing.B) {
	for _, counted := range []bool{false, true} {
		name := map[bool]string{false: "bare", true: "counted"}[counted]
		b.Run(name, func(b *testing.B) {
			var units Units
			var count int64
			var done sync.WaitGroup
			for range b.N {
				done.Add(1)
				go func() {
					if counted {
						units.Start()
					}
					count++
					if counted {
						units.Finish()
					}
					done.Done()
				}()
				done.Wait()
			}
		})
	}
}
