// I/O - Pipe (workloads/pipe.toml): per group one pipe, a writer unit and a
// reader unit; the writer writes `messages` blocks of `size` bytes and
// closes its end, the reader reads until EOF and counts the bytes.
use std::io::PipeReader;
use std::io::{self, PipeWriter};

use smol::Async;
use tokio::net::unix::pipe;

use crate::kit::Mechanism;
use crate::shared::stream::{self, WriteEnd};
use crate::shared::tasks::Flavor;

// std::io::pipe (Rust 1.87 or later): blocking ends, close-on-exec.
pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| stream::threads(run, io::pipe)),
    ("tokio", |run| stream::tasks(run, Flavor::MultiThread, tokio_pipe)),
    ("tokio_ct", |run| stream::tasks(run, Flavor::CurrentThread, tokio_pipe)),
    ("smol", |run| stream::smol(run, smol_pipe)),
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
