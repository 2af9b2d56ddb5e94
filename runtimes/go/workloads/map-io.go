// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
package workloads

import (
	"bytes"
	"os"
	"path/filepath"
	"sync/atomic"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() { kit.Register("map-io", lib.WorkerModeMechanisms(mapIO)) }

func mapIO(run *kit.Run, mechanism string) error {
	path := filepath.Join(run.Scratch(), "map-io")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, int(run.Int("file_size"))), 0o600); err != nil {
		return err
	}
	defer os.Remove(path)
	inputs := lib.Draws(run.Int("cases"), 0, 10)
	var failed atomic.Pointer[error] // the first failure of any unit: every case reads the same file
	evaluate := func(n int64) int64 {
		content, err := os.ReadFile(path)
		if err != nil {
			failed.CompareAndSwap(nil, &err)
			return 0
		}
		return int64(len(append(content, bytes.Repeat([]byte{'x'}, int(n))...)))
	}
	var length int64
	err := lib.WorkerModes(run, mechanism, evaluate, func(apply lib.Map[int64, int64]) {
		length += lib.Total(apply(inputs))
	})
	run.Result("length", length)
	if first := failed.Load(); err == nil && first != nil {
		err = *first
	}
	return err
}
