//! pipe and socketpair: per group, a pair of ends, a writer unit writing
//! `messages` blocks of `size` bytes and then ending its stream, and a
//! reader unit reading `size` bytes a call until EOF and counting them.
use std::io::{self, Read, Write};
use std::thread;

use monoio::buf::{IoBuf, Slice};
use monoio::BufResult;
use smol::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::executor::Spawner;
use super::monoio as monoio_tasks;
use super::smol as smol_tasks;
use super::tasks::{self, Flavor};
use super::threads;
use crate::kit::{Result, Run};

/// A blocking stream's writing end: `finish` ends the stream where closing
/// the end does not (a socket's shutdown for writing); the writer closes
/// the end last, by dropping it.
pub trait WriteEnd: Write + Send {
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Threads with blocking ends: a thread whose end is not ready blocks in
/// its read or write, and the kernel runs another.
pub fn threads<R, W>(run: &mut Run, pair: fn() -> io::Result<(R, W)>) -> Result
where
    R: Read + Send,
    W: WriteEnd,
{
    let (groups, messages, size) = (run.count("groups"), run.count("messages"), run.count("size"));
    let units = run.units();
    let bytes = thread::scope(|scope| -> Result<u64> {
        let (mut writers, mut readers) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        for _ in 0..groups {
            // On an early return the scope still joins the units started:
            // each owns its end, so each one's peer ends or fails.
            let (reader, writer) = pair()?;
            writers.push(threads::spawn(scope, &units, move || write(writer, messages, size))?);
            readers.push(threads::spawn(scope, &units, move || read_all(reader, size))?);
        }
        writers.into_iter().try_for_each(threads::join)?;
        Ok(readers.into_iter().map(threads::join).sum::<io::Result<u64>>()?)
    })?;
    run.result("bytes", bytes as i64);
    Ok(())
}

fn write(mut end: impl WriteEnd, messages: usize, size: usize) -> io::Result<()> {
    let block = vec![b'x'; size];
    for _ in 0..messages {
        end.write_all(&block)?; // loops on short writes
    }
    end.finish()
}

fn read_all(mut end: impl Read, size: usize) -> io::Result<u64> {
    let mut buffer = vec![0; size];
    let mut total = 0;
    loop {
        match end.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// Tasks with tokio's non-blocking ends, registered with its reactor: a
/// task whose end is not ready yields, and the reactor wakes it. The ends
/// are made on the runtime (`pair` needs its reactor), inside the clocks.
pub fn tasks<R, W>(run: &mut Run, flavor: Flavor, pair: fn() -> io::Result<(R, W)>) -> Result
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (groups, messages, size) = (run.count("groups"), run.count("messages"), run.count("size"));
    let units = run.units();
    let work = async move {
        let (mut writers, mut readers) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        for _ in 0..groups {
            let (reader, writer) = pair()?;
            writers.push(tasks::spawn(&units, write_async(writer, messages, size)));
            readers.push(tasks::spawn(&units, read_all_async(reader, size)));
        }
        for writer in writers {
            writer.await??;
        }
        let mut bytes = 0;
        for reader in readers {
            bytes += reader.await??;
        }
        Ok::<_, crate::kit::Error>(bytes)
    };
    let bytes = tasks::block_on(run, flavor, work)??;
    run.result("bytes", bytes as i64);
    Ok(())
}

/// shutdown ends the stream: a socket's shutdown for writing, nothing for a
/// pipe, whose stream ends when the end is dropped.
async fn write_async(mut end: impl AsyncWrite + Unpin, messages: usize, size: usize) -> io::Result<()> {
    let block = vec![b'x'; size];
    for _ in 0..messages {
        end.write_all(&block).await?;
    }
    end.shutdown().await
}

async fn read_all_async(mut end: impl AsyncRead + Unpin, size: usize) -> io::Result<u64> {
    let mut buffer = vec![0; size];
    let mut total = 0;
    loop {
        match end.read(&mut buffer).await? {
            0 => return Ok(total),
            n => total += n as u64,
        }
    }
}

/// Tasks on a smol executor with smol's non-blocking ends, registered with
/// async-io's reactor as they are made, inside the clocks: a task whose end
/// is not ready yields, and the reactor wakes it.
pub fn smol<R, W>(run: &mut Run, pair: fn() -> io::Result<(R, W)>) -> Result
where
    R: smol::io::AsyncRead + Unpin + Send + 'static,
    W: smol::io::AsyncWrite + Unpin + Send + 'static,
{
    let (groups, messages, size) = (run.count("groups"), run.count("messages"), run.count("size"));
    let work = |tasks: smol_tasks::Tasks| async move {
        let (mut writers, mut readers) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        for _ in 0..groups {
            // On an early return the units started are dropped, which
            // cancels them.
            let (reader, writer) = pair()?;
            writers.push(tasks.spawn(write_smol(writer, messages, size)));
            readers.push(tasks.spawn(read_all_smol(reader, size)));
        }
        for writer in writers {
            writer.await?;
        }
        let mut bytes = 0;
        for reader in readers {
            bytes += reader.await?;
        }
        Ok::<_, io::Error>(bytes)
    };
    let bytes = smol_tasks::block_on(run, work)??;
    run.result("bytes", bytes as i64);
    Ok(())
}

/// close ends the stream: a socket's shutdown for writing (smol::net's
/// UnixStream), a flush for a pipe, whose stream ends when the end is
/// dropped.
async fn write_smol(mut end: impl smol::io::AsyncWrite + Unpin, messages: usize, size: usize) -> io::Result<()> {
    let block = vec![b'x'; size];
    for _ in 0..messages {
        end.write_all(&block).await?;
    }
    end.close().await
}

async fn read_all_smol(mut end: impl smol::io::AsyncRead + Unpin, size: usize) -> io::Result<u64> {
    let mut buffer = vec![0; size];
    let mut total = 0;
    loop {
        match end.read(&mut buffer).await? {
            0 => return Ok(total),
            n => total += n as u64,
        }
    }
}

/// A monoio end that reads: one io_uring read a call, which takes the
/// buffer and gives it back (monoio's "rent" I/O). monoio closes an end it
/// drops with an io_uring close.
pub trait UringRead: 'static {
    async fn read(&mut self, buffer: Vec<u8>) -> BufResult<usize, Vec<u8>>;
}

/// A monoio end that writes: one io_uring write a call; `finish` ends the
/// stream (a socket's shutdown for writing, a pipe's close).
pub trait UringWrite: Sized + 'static {
    async fn write(&mut self, block: Slice<Vec<u8>>) -> BufResult<usize, Slice<Vec<u8>>>;
    async fn finish(self) -> io::Result<()>;
}

/// Tasks on monoio's runtime, whose ends are read and written by io_uring
/// operations: a task whose operation is in flight waits for its completion
/// while the others run. The ends are made on the runtime (monoio's need its
/// driver), inside the clocks.
pub fn monoio<R: UringRead, W: UringWrite>(run: &mut Run, pair: fn() -> io::Result<(R, W)>) -> Result {
    let (groups, messages, size) = (run.count("groups"), run.count("messages"), run.count("size"));
    let units = run.units();
    let work = async move {
        let (mut writers, mut readers) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        for _ in 0..groups {
            let (reader, writer) = pair()?;
            writers.push(monoio_tasks::spawn(&units, write_monoio(writer, messages, size)));
            readers.push(monoio_tasks::spawn(&units, read_all_monoio(reader, size)));
        }
        for writer in writers {
            writer.await?;
        }
        let mut bytes = 0;
        for reader in readers {
            bytes += reader.await?;
        }
        Ok::<_, io::Error>(bytes)
    };
    let bytes = monoio_tasks::block_on(run, work)??;
    run.result("bytes", bytes as i64);
    Ok(())
}

/// Writes each block whole, going on after a short write.
async fn write_monoio(mut end: impl UringWrite, messages: usize, size: usize) -> io::Result<()> {
    let mut block = vec![b'x'; size];
    for _ in 0..messages {
        let mut written = 0;
        while written < size {
            let (result, rest) = end.write(block.slice(written..)).await;
            block = rest.into_inner();
            match result? {
                0 => return Err(io::ErrorKind::WriteZero.into()),
                n => written += n,
            }
        }
    }
    end.finish().await
}

async fn read_all_monoio(mut end: impl UringRead, size: usize) -> io::Result<u64> {
    let mut buffer = Vec::with_capacity(size);
    let mut total = 0;
    loop {
        let (result, back) = end.read(buffer).await;
        buffer = back;
        match result? {
            0 => return Ok(total),
            n => total += n as u64,
        }
    }
}
