// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
use std::io::{self, PipeReader, PipeWriter};
use std::os::fd::OwnedFd;

use monoio::buf::Slice;
use monoio::fs::File;
use monoio::BufResult;
use smol::Async;
use tokio::net::unix::pipe;

use crate::kit::Mechanism;
use crate::shared::stream::{self, UringRead, UringWrite, WriteEnd};
use crate::shared::tasks::Flavor;

// std::io::pipe (Rust 1.87 or later): blocking ends, close-on-exec.
pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| stream::threads(run, io::pipe)),
    ("tokio", |run| stream::tasks(run, Flavor::MultiThread, tokio_pipe)),
    ("tokio_ct", |run| stream::tasks(run, Flavor::CurrentThread, tokio_pipe)),
    ("smol", |run| stream::smol(run, smol_pipe)),
    ("monoio", |run| stream::monoio(run, monoio_pipe)),
];

// A pipe's stream ends when its writing end is closed, which the writer
// does last: nothing to do before.
impl WriteEnd for PipeWriter {}

/// A pipe whose ends are non-blocking and registered with tokio's reactor:
/// reading end first.
fn tokio_pipe() -> io::Result<(pipe::Receiver, pipe::Sender)> {
    let (writer, reader) = pipe::pipe()?;
    Ok((reader, writer))
}

/// A pipe whose ends are non-blocking and registered with async-io's
/// reactor (smol::Async): reading end first.
fn smol_pipe() -> io::Result<(Async<PipeReader>, Async<PipeWriter>)> {
    let (reader, writer) = io::pipe()?;
    Ok((Async::new(reader)?, Async::new(writer)?))
}

/// A pipe whose ends are monoio Files (monoio 0.2.4's Pipe has no read nor
/// write): reading end first. std's ends block, which io_uring does not
/// mind: it tries each operation without blocking, and polls the pipe
/// itself before it tries again.
fn monoio_pipe() -> io::Result<(File, File)> {
    let (reader, writer) = io::pipe()?;
    Ok((
        File::from_std(OwnedFd::from(reader).into())?,
        File::from_std(OwnedFd::from(writer).into())?,
    ))
}

// A File's reads and writes are io_uring's READ and WRITE, at an offset: a
// pipe is not seekable, and io_uring reads and writes it in stream order
// whatever the offset (tried on this kernel, 6.18, at offsets 0, 1000 and
// 5000); io_uring_prep_read(3) asks for 0 on such a file.
impl UringRead for File {
    async fn read(&mut self, buffer: Vec<u8>) -> BufResult<usize, Vec<u8>> {
        self.read_at(buffer, 0).await
    }
}

impl UringWrite for File {
    async fn write(&mut self, block: Slice<Vec<u8>>) -> BufResult<usize, Slice<Vec<u8>>> {
        self.write_at(block, 0).await
    }

    /// A pipe's stream ends when its writing end is closed: an io_uring close.
    async fn finish(self) -> io::Result<()> {
        self.close().await
    }
}
