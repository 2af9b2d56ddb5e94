// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
package workloads

import (
	"io"
	"os"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("pipe", map[string]kit.Mechanism{"goroutine": pipeGoroutine})
}

// os.Pipe's ends are non-blocking and registered with the netpoller.
func pipeGoroutine(run *kit.Run) error {
	return lib.StreamGoroutines(run, func() (io.ReadCloser, lib.WriteEnd, error) {
		reader, writer, err := os.Pipe()
		return reader, pipeWriter{writer}, err
	})
}

// A pipe's stream ends when its writing end is closed, which the writer
// does last: nothing to do before.
type pipeWriter struct{ *os.File }

func (pipeWriter) Finish() error { return nil }
