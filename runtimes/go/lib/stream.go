// Package lib holds the code several workloads share, so that every file in
// workloads/ is a workload.
package lib

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"concbench/go/kit"
)

// A WriteEnd is a stream's writing end: Finish ends the stream where
// closing the end does not (a socket's shutdown for writing); the writer
// closes the end last.
type WriteEnd interface {
	io.Writer
	Finish() error
	Close() error
}

// StreamGoroutines is pipe and socketpair: per group, a pair of ends from
// pair, a writer goroutine writing `messages` blocks of `size` bytes and
// then ending its stream, and a reader goroutine reading `size` bytes a call
// until EOF and counting them. Both go through Go's netpoller: a goroutine
// whose descriptor is not ready parks, and the poller wakes it.
func StreamGoroutines(run *kit.Run, pair func() (io.ReadCloser, WriteEnd, error)) error {
	groups, messages, size := run.Int("groups"), run.Int("messages"), run.Int("size")
	units := run.Units()
	read := make([]int64, groups)
	failures := make([]error, 2*groups)
	var done sync.WaitGroup
	for g := range groups {
		reader, writer, err := pair()
		if err != nil {
			done.Wait()
			return err
		}
		done.Add(2)
		go func() {
			defer done.Done()
			units.Start()
			failures[2*g] = write(writer, messages, size)
			units.Finish()
		}()
		go func() {
			defer done.Done()
			units.Start()
			read[g], failures[2*g+1] = readAll(reader, size)
			units.Finish()
		}()
	}
	done.Wait()
	if err := errors.Join(failures...); err != nil {
		return err
	}
	var bytes int64
	for _, n := range read {
		bytes += n
	}
	run.Result("bytes", bytes)
	return nil
}

func write(end WriteEnd, messages, size int64) error {
	defer end.Close()
	block := bytes.Repeat([]byte{'x'}, int(size))
	for range messages {
		if _, err := end.Write(block); err != nil {
			return err
		}
	}
	return end.Finish()
}

func readAll(end io.ReadCloser, size int64) (int64, error) {
	defer end.Close()
	buffer := make([]byte, size)
	var total int64
	for {
		n, err := end.Read(buffer)
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}
