// Echo (workloads/echo.toml): a server under concbench's load generator.
// Before the clocks it listens on a loopback TCP port (or a Unix socket) and
// says where; timed, it accepts `connections` connections and, on each,
// writes back every byte it reads until the client closes, then closes it.
package workloads

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("echo", map[string]kit.Mechanism{"goroutine": echoGoroutine})
}

// Go's own server: the caller accepts, and a goroutine per connection reads
// what has arrived and writes it back, parked by the netpoller while its
// socket has nothing to read or no room. Not io.Copy(conn, conn), the net
// package's example: on TCP it splices through a pipe, which each goroutine
// holds while it waits to read; at 10,000 connections the process reached
// the machine's 20,000 descriptors, some 10,900 of them pipes, and hung
// until its time limit; and it would not be the read and write every other
// row makes. Go sets TCP_NODELAY on
// every TCP connection, and listens with the kernel's somaxconn as its backlog.
func echoGoroutine(run *kit.Run) error {
	connections := run.Int("connections")
	listener, err := listen(run)
	if err != nil {
		return err
	}
	defer listener.Close() // a Unix listener removes its file
	address := listener.Addr()
	if err := run.Listening(address.Network() + ":" + address.String()); err != nil {
		return err
	}
	buffer := int(max(run.Int("size"), 4096)) // a read takes what is there, up to this
	units := run.Units()
	echoed := make([]int64, connections)
	failures := make([]error, connections+1) // the last is the caller's accept
	var accepted int64
	var open atomic.Int64 // connections open now
	var held int64        // their most: open grows only as the caller accepts
	run.Timed(func() {
		var done sync.WaitGroup
		for c := range connections {
			conn, err := listener.Accept()
			if err != nil {
				failures[connections] = err
				break
			}
			accepted++
			held = max(held, open.Add(1))
			done.Add(1)
			go func() {
				defer done.Done()
				units.Start()
				echoed[c], failures[c] = echo(conn, buffer)
				failures[c] = errors.Join(failures[c], conn.Close())
				open.Add(-1)
				units.Finish()
			}()
		}
		done.Wait()
	})
	if err := errors.Join(failures...); err != nil {
		return err
	}
	run.Result("connections", accepted)
	run.Result("bytes", lib.Total(echoed))
	run.Evidence("held", held)
	return nil
}

// echo writes back what it reads until the client closes; the bytes written.
func echo(conn net.Conn, size int) (int64, error) {
	buffer := make([]byte, size)
	var written int64
	for {
		n, err := conn.Read(buffer)
		if n > 0 {
			if _, err := conn.Write(buffer[:n]); err != nil {
				return written, err
			}
			written += int64(n)
		}
		if errors.Is(err, io.EOF) {
			return written, nil
		}
		if err != nil {
			return written, err
		}
	}
}

// listen opens the run's listener: on 127.0.0.1, at a port the kernel
// picks, or at echo.sock in the scratch directory, once a leftover of an
// earlier run is removed.
func listen(run *kit.Run) (net.Listener, error) {
	if run.Choice("transport") == "tcp" {
		return net.Listen("tcp", "127.0.0.1:0")
	}
	path := filepath.Join(run.Scratch(), "echo.sock")
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return net.Listen("unix", path)
}
