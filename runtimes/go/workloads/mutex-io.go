// Mutex, I/O-bound (workloads/mutex-io.toml): per group one mutex, one file
// in the scratch directory and the file's end, shared by its units; each of
// `workers` goroutines, `iterations` times, locks, reads the group's end,
// writes `size` bytes at that offset (one File.WriteAt, a pwrite, no
// user-space buffering), stores the end plus `size` and unlocks. The files
// are made before the clocks; their sizes are summed, and the files
// removed, after the clocks stop.
//
// A regular file is not pollable: a goroutine's pwrite blocks its thread,
// and Go's scheduler hands the other goroutines to another thread meanwhile.
// contended: acquisitions whose TryLock failed, each then taken with Lock.
package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("mutex-io", map[string]kit.Mechanism{"goroutine": mutexIOGoroutine})
}

type fileGroup struct {
	lock sync.Mutex
	file *os.File
	end  int64 // where the next write goes; guarded by lock
}

func mutexIOGoroutine(run *kit.Run) (err error) {
	groups, workers, iterations, size := run.Int("groups"), run.Int("workers"), run.Int("iterations"), run.Int("size")
	gs := make([]fileGroup, groups)
	defer func() { err = errors.Join(err, removeFiles(gs)) }()
	for g := range gs {
		path := filepath.Join(run.Scratch(), fmt.Sprintf("mutex-io-%d", g))
		if gs[g].file, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err != nil {
			return err
		}
	}
	block := bytes.Repeat([]byte{'x'}, int(size))
	units := run.Units()
	contended := make([]int64, groups*workers)
	failures := make([]error, groups*workers)
	run.Timed(func() {
		lib.Goroutines(units, groups*workers, func(w int64) {
			contended[w], failures[w] = writeLocked(&gs[w/workers], block, iterations)
		})
	})
	if err := errors.Join(failures...); err != nil {
		return err
	}
	var written int64
	for g := range gs {
		info, err := gs[g].file.Stat()
		if err != nil {
			return err
		}
		written += info.Size()
	}
	run.Result("bytes", written)
	run.Evidence("contended", lib.Total(contended))
	return nil
}

// writeLocked is one worker: its acquisitions that found the lock held.
func writeLocked(group *fileGroup, block []byte, iterations int64) (int64, error) {
	var contended int64
	for range iterations {
		contended += lib.Lock(&group.lock)
		at := group.end
		_, err := group.file.WriteAt(block, at) // loops on short writes
		group.end = at + int64(len(block))
		group.lock.Unlock()
		if err != nil {
			return contended, err
		}
	}
	return contended, nil
}

func removeFiles(gs []fileGroup) error {
	var failures []error
	for g := range gs {
		if file := gs[g].file; file != nil {
			failures = append(failures, file.Close(), os.Remove(file.Name()))
		}
	}
	return errors.Join(failures...)
}
