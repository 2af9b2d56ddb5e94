// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM socketpair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
package workloads

import (
	"io"
	"net"
	"os"
	"syscall"

	"concbench/go/kit"
	"concbench/go/lib"
)

func init() {
	kit.Register("socketpair", map[string]kit.Mechanism{"goroutine": socketpairGoroutine})
}

// Each end becomes a *net.UnixConn (net.FileConn), which reads and writes
// through the netpoller.
func socketpairGoroutine(run *kit.Run) error {
	return lib.StreamGoroutines(run, func() (io.ReadCloser, lib.WriteEnd, error) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, nil, os.NewSyscallError("socketpair", err)
		}
		reader, err := unixConn(fds[0])
		if err != nil {
			syscall.Close(fds[1])
			return nil, nil, err
		}
		writer, err := unixConn(fds[1])
		if err != nil {
			reader.Close()
			return nil, nil, err
		}
		return reader, socketWriter{writer}, nil
	})
}

// unixConn makes a connection of a socket descriptor (net.FileConn takes a
// copy of it; the original is closed).
func unixConn(fd int) (*net.UnixConn, error) {
	file := os.NewFile(uintptr(fd), "socketpair")
	defer file.Close()
	conn, err := net.FileConn(file)
	if err != nil {
		return nil, err
	}
	return conn.(*net.UnixConn), nil
}

// A socket's stream ends with a shutdown for writing.
type socketWriter struct{ *net.UnixConn }

func (w socketWriter) Finish() error { return w.CloseWrite() }
