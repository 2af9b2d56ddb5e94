// I/O - Socketpair (workloads/socketpair.toml): per group one AF_UNIX
// SOCK_STREAM socketpair, a writer unit and a reader unit; the writer writes
// `messages` blocks of `size` bytes and shuts its side down for writing, the
// reader reads until EOF and counts the bytes.
use std::io;
use std::net::Shutdown;
use std::os::unix::net::UnixStream;

use monoio::buf::Slice;
use monoio::io::{AsyncReadRent, AsyncWriteRent};
use monoio::BufResult;

use crate::kit::Mechanism;
use crate::shared::stream::{self, UringRead, UringWrite, WriteEnd};
use crate::shared::tasks::Flavor;

// UnixStream::pair is socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC): std's
// ends block; tokio's are non-blocking and registered with its reactor, and
// their AsyncWrite::shutdown is the shutdown for writing.
pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", |run| stream::threads(run, UnixStream::pair)),
    ("tokio", |run| {
        stream::tasks(run, Flavor::MultiThread, tokio::net::UnixStream::pair)
    }),
    ("tokio_ct", |run| {
        stream::tasks(run, Flavor::CurrentThread, tokio::net::UnixStream::pair)
    }),
    ("smol", |run| stream::smol(run, smol::net::unix::UnixStream::pair)),
    ("monoio", |run| stream::monoio(run, monoio::net::UnixStream::pair)),
    // smol::net's ends are smol::Async ones (registered with async-io's
    // reactor), and their AsyncWrite::close is the shutdown for writing.
];

// A socket's stream ends with a shutdown for writing.
impl WriteEnd for UnixStream {
    fn finish(&mut self) -> std::io::Result<()> {
        self.shutdown(Shutdown::Write)
    }
}

// monoio's ends read and write with io_uring's RECV and SEND; their
// shutdown for writing is shutdown(2) itself, not an io_uring operation.
impl UringRead for monoio::net::UnixStream {
    async fn read(&mut self, buffer: Vec<u8>) -> BufResult<usize, Vec<u8>> {
        AsyncReadRent::read(self, buffer).await
    }
}

impl UringWrite for monoio::net::UnixStream {
    async fn write(&mut self, block: Slice<Vec<u8>>) -> BufResult<usize, Slice<Vec<u8>>> {
        AsyncWriteRent::write(self, block).await
    }

    async fn finish(mut self) -> io::Result<()> {
        self.shutdown().await
    }
}
