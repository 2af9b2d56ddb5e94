//! await-readable and await-writable, written once: `batch` pipes are made
//! before the clocks start; operation i of a batch awaits the readiness of
//! pipe i, which is ready already (a byte waits in it, or it is empty): the
//! cost of asking, not of waiting. Awaits are sequential, as in the seed, by
//! one unit, alive while it runs the loop. An await counts only when
//! readiness of that very descriptor was reported.
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};

use smol::Async;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use super::counted;
use super::smol as smol_tasks;
use super::tasks::{self, Flavor};
use crate::kit::{Result, Run};

/// What an operation awaits.
#[derive(Clone, Copy)]
pub enum Ready {
    /// The reading end of a pipe holding a byte that is never read.
    Readable,
    /// The writing end of an empty pipe.
    Writable,
}

/// The batch's pipes: the ends awaited, and the other ends, kept open so
/// that no end reports a hang-up instead.
fn pipes(batch: usize, kind: Ready) -> io::Result<(Vec<OwnedFd>, Vec<OwnedFd>)> {
    let (mut awaited, mut other) = (Vec::with_capacity(batch), Vec::with_capacity(batch));
    for _ in 0..batch {
        let (reader, mut writer) = io::pipe()?;
        match kind {
            Ready::Readable => {
                writer.write_all(b"0")?;
                awaited.push(reader.into());
                other.push(writer.into());
            }
            Ready::Writable => {
                awaited.push(writer.into());
                other.push(reader.into());
            }
        }
    }
    Ok((awaited, other))
}

/// The thread waits in place, in poll(2), as c/pthread does (std has no
/// call for it). The pipes are closed after the clocks.
pub fn threads(run: &mut Run, kind: Ready) -> Result {
    let (awaited, other) = pipes(run.count("batch"), kind)?;
    let events = match kind {
        Ready::Readable => libc::POLLIN,
        Ready::Writable => libc::POLLOUT,
    };
    let units = run.units();
    let (mut ready, mut failed) = (0, None);
    units.start();
    run.rate(|| {
        for fd in &awaited {
            let mut asked = libc::pollfd {
                fd: fd.as_raw_fd(),
                events,
                revents: 0,
            };
            // SAFETY: poll reads and writes the one pollfd it is given,
            // which lives here.
            if unsafe { libc::poll(&mut asked, 1, -1) } < 0 {
                failed.get_or_insert(io::Error::last_os_error());
            } else if asked.revents & events != 0 {
                ready += 1;
            }
        }
    });
    units.finish();
    run.stop_clocks();
    drop((awaited, other));
    if let Some(err) = failed {
        return Err(err.into());
    }
    run.result("count", ready);
    Ok(())
}

/// A task awaits each end's readiness through tokio's AsyncFd, registered
/// with the reactor (epoll, edge-triggered) before the clocks. tokio keeps
/// the readiness the reactor reported until the task clears it
/// (clear_ready, after a read or write that would block): the guard is
/// dropped uncleared, so each await after the first of an end is answered
/// from that cache, with no system call. That is tokio's cost of asking
/// (the first await of each end waits for the reactor's report). The loop
/// runs on a task of its own, as in shared::invocation.
pub fn tasks(run: &mut Run, flavor: Flavor, kind: Ready) -> Result {
    let (awaited, other) = pipes(run.count("batch"), kind)?;
    let interest = match kind {
        Ready::Readable => Interest::READABLE,
        Ready::Writable => Interest::WRITABLE,
    };
    let units = run.units();
    let mut rate = run.rate_loop();
    let runtime = tasks::runtime(run, flavor)?;
    let awaited = {
        let _inside = runtime.enter(); // AsyncFd registers with the runtime's reactor
        awaited
            .into_iter()
            .map(|fd| {
                // SAFETY: an OwnedFd's descriptor is its own, open until the
                // OwnedFd (here, the AsyncFd owning it) is dropped.
                unsafe { AsyncFd::register_with_interest(fd, interest) }.map_err(|err| err.into_parts().1)
            })
            .collect::<io::Result<Vec<_>>>()?
    };
    let looped = counted::unit(&units, async move {
        let mut ready = 0;
        rate.start();
        loop {
            for fd in &awaited {
                let reported = match kind {
                    Ready::Readable => fd.readable().await?.ready().is_readable(),
                    Ready::Writable => fd.writable().await?.ready().is_writable(),
                };
                ready += i64::from(reported);
            }
            if !rate.next_batch() {
                break;
            }
        }
        rate.stop_clocks();
        Ok::<_, io::Error>((rate, ready, awaited))
    });
    let (rate, ready, awaited) = tasks::on_a_task(&runtime, looped)?;
    drop(awaited); // deregisters, before the runtime goes
    drop(runtime);
    drop(other);
    run.rate_done(rate);
    run.result("count", ready);
    Ok(())
}

/// A task awaits each end's readiness through smol::Async, registered with
/// async-io's reactor (epoll, one-shot) before the clocks. async-io keeps no
/// readiness between awaits: each one re-arms the end's interest
/// (epoll_ctl) and completes only once a later epoll_wait of the reactor
/// has reported that end ready in that direction, so every await is a round
/// trip through the reactor, however long the end has been ready. The loop
/// runs on a task of its own, as in shared::invocation.
pub fn smol(run: &mut Run, kind: Ready) -> Result {
    let (awaited, other) = pipes(run.count("batch"), kind)?;
    let awaited = awaited.into_iter().map(Async::new).collect::<io::Result<Vec<_>>>()?;
    let units = run.units();
    let mut rate = run.rate_loop();
    let runtime = smol_tasks::Runtime::new(run)?;
    let looped = counted::unit(&units, async move {
        let mut ready = 0;
        rate.start();
        loop {
            for fd in &awaited {
                match kind {
                    Ready::Readable => fd.readable().await?,
                    Ready::Writable => fd.writable().await?,
                }
                ready += 1;
            }
            if !rate.next_batch() {
                break;
            }
        }
        rate.stop_clocks();
        Ok::<_, io::Error>((rate, ready))
    });
    let (rate, ready) = runtime.block_on(looped)?;
    drop(runtime);
    drop(other);
    run.rate_done(rate);
    run.result("count", ready);
    Ok(())
}
