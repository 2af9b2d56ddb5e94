package lib

import (
	"sync"

	"concbench/go/kit"
)

// Goroutines starts n goroutines, the i-th running body(i) as one unit
// (counted as it starts and as it finishes), and waits for them all.
func Goroutines(units *kit.Units, n int64, body func(i int64)) {
	var done sync.WaitGroup
	done.Add(int(n))
	for i := range n {
		go func() {
			defer done.Done()
			units.Start()
			body(i)
			units.Finish()
		}()
	}
	done.Wait()
}
