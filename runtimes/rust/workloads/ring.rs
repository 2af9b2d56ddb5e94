// Ring (workloads/ring.toml): `nodes` units in a ring, each knowing the
// next. The first starts a token at count 0; every pass adds one. When the
// token reaches the first unit for the `laps`-th time, the first unit stops
// it and reports its count; then every unit is stopped and awaited.
//
// Each node owns the receiving end of its inbox and the sending end of the
// next node's. The first node stops the ring by returning, which drops its
// sender: the next node's receive then ends, it returns and drops its own,
// and so round the ring. A node that fails (or is never started) ends it the
// same way.
use std::thread;

use crossbeam_channel::{Receiver, Sender};
use local_sync::mpsc::bounded;
use tokio::sync::mpsc;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", ring_threads),
    ("tokio", |run| ring_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| ring_tasks(run, Flavor::CurrentThread)),
    ("smol", ring_smol),
    ("monoio", ring_monoio),
];

/// Each node's ends, in ring order: its inbox's receiver and the next
/// node's sender.
fn ends<S, R>(nodes: usize, channel: impl Fn() -> (S, R)) -> impl Iterator<Item = (R, S)> {
    let (mut senders, receivers): (Vec<S>, Vec<R>) = (0..nodes).map(|_| channel()).unzip();
    senders.rotate_left(1);
    receivers.into_iter().zip(senders)
}

/// The classic thread-ring: a thread per node, each handing the token on
/// over a zero-capacity (rendezvous) crossbeam channel, so that a send waits
/// for the next node to take it.
fn ring_threads(run: &mut Run) -> Result {
    let (nodes, laps) = (run.count("nodes"), run.count("laps"));
    let units = run.units();
    let hops = thread::scope(|scope| -> Result<i64> {
        let mut ends = ends(nodes, || crossbeam_channel::bounded(0));
        let (inbox, next) = ends.next().ok_or("a ring needs a node")?;
        let first = threads::spawn(scope, &units, move || lead(&inbox, &next, laps))?;
        let rest = ends
            .map(|(inbox, next)| threads::spawn(scope, &units, move || pass(&inbox, &next)))
            .collect::<std::io::Result<Vec<_>>>()?;
        let hops = threads::join(first)?;
        rest.into_iter().try_for_each(threads::join)?;
        Ok(hops)
    })?;
    run.result("hops", hops);
    Ok(())
}

/// The first node: starts the token, and stops it on its last lap.
fn lead(inbox: &Receiver<i64>, next: &Sender<i64>, laps: usize) -> Result<i64> {
    next.send(1)?;
    for lap in 1.. {
        let count = inbox.recv()?;
        if lap == laps {
            return Ok(count);
        }
        next.send(count + 1)?;
    }
    unreachable!("the laps end the loop")
}

fn pass(inbox: &Receiver<i64>, next: &Sender<i64>) -> Result {
    for count in inbox {
        next.send(count + 1)?;
    }
    Ok(())
}

/// A task per node, each with a tokio mpsc channel of its own for its
/// inbox. tokio's channels have no rendezvous: the least bound is 1, which
/// is all the ring's one token needs, so a send never waits and the token
/// is handed over through the buffer.
fn ring_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (nodes, laps) = (run.count("nodes"), run.count("laps"));
    let units = run.units();
    let work = async move {
        let mut ends = ends(nodes, || mpsc::channel(1));
        let (mut inbox, next) = ends.next().ok_or("a ring needs a node")?;
        let first = tasks::spawn(&units, async move { lead_async(&mut inbox, &next, laps).await });
        let rest: Vec<_> = ends
            .map(|(mut inbox, next)| tasks::spawn(&units, async move { pass_async(&mut inbox, &next).await }))
            .collect();
        let hops = tasks::join(first).await?;
        for node in rest {
            tasks::join(node).await?;
        }
        Ok::<_, crate::kit::Error>(hops)
    };
    let hops = tasks::block_on(run, flavor, work)??;
    run.result("hops", hops);
    Ok(())
}

async fn lead_async(inbox: &mut mpsc::Receiver<i64>, next: &mpsc::Sender<i64>, laps: usize) -> Result<i64> {
    next.send(1).await?;
    for lap in 1.. {
        let count = inbox.recv().await.ok_or("the ring broke")?;
        if lap == laps {
            return Ok(count);
        }
        next.send(count + 1).await?;
    }
    unreachable!("the laps end the loop")
}

async fn pass_async(inbox: &mut mpsc::Receiver<i64>, next: &mpsc::Sender<i64>) -> Result {
    while let Some(count) = inbox.recv().await {
        next.send(count + 1).await?;
    }
    Ok(())
}

/// A smol task per node, each with a smol::channel of its own for its
/// inbox. async-channel has no rendezvous either (a bound of 0 panics): the
/// least bound is 1, which is all the ring's one token needs, as in the
/// tokio row.
fn ring_smol(run: &mut Run) -> Result {
    let (nodes, laps) = (run.count("nodes"), run.count("laps"));
    let work = move |tasks: smol_tasks::Tasks| async move {
        let mut ends = ends(nodes, || smol::channel::bounded(1));
        let (inbox, next) = ends.next().ok_or("a ring needs a node")?;
        let first = tasks.spawn(async move { lead_smol(&inbox, &next, laps).await });
        let rest: Vec<_> = ends
            .map(|(inbox, next)| tasks.spawn(async move { pass_smol(&inbox, &next).await }))
            .collect();
        let hops = first.await?;
        for node in rest {
            node.await?;
        }
        Ok::<_, crate::kit::Error>(hops)
    };
    let hops = smol_tasks::block_on(run, work)??;
    run.result("hops", hops);
    Ok(())
}

async fn lead_smol(
    inbox: &smol::channel::Receiver<i64>,
    next: &smol::channel::Sender<i64>,
    laps: usize,
) -> Result<i64> {
    next.send(1).await?;
    for lap in 1.. {
        let count = inbox.recv().await?;
        if lap == laps {
            return Ok(count);
        }
        next.send(count + 1).await?;
    }
    unreachable!("the laps end the loop")
}

async fn pass_smol(inbox: &smol::channel::Receiver<i64>, next: &smol::channel::Sender<i64>) -> Result {
    while let Ok(count) = inbox.recv().await {
        next.send(count + 1).await?;
    }
    Ok(())
}

/// A monoio task per node, each with a local-sync channel of its own for its
/// inbox; as tokio's, local-sync's channels have no rendezvous, and a bound
/// of 1 is all the ring's one token needs.
fn ring_monoio(run: &mut Run) -> Result {
    let (nodes, laps) = (run.count("nodes"), run.count("laps"));
    let units = run.units();
    let work = async move {
        let mut ends = ends(nodes, || bounded::channel(1));
        let (mut inbox, next) = ends.next().ok_or("a ring needs a node")?;
        let first = monoio_tasks::spawn(&units, async move { lead_monoio(&mut inbox, &next, laps).await });
        let rest: Vec<_> = ends
            .map(|(mut inbox, next)| monoio_tasks::spawn(&units, async move { pass_monoio(&mut inbox, &next).await }))
            .collect();
        let hops = first.await?;
        for node in rest {
            node.await?;
        }
        Ok::<_, crate::kit::Error>(hops)
    };
    let hops = monoio_tasks::block_on(run, work)??;
    run.result("hops", hops);
    Ok(())
}

async fn lead_monoio(inbox: &mut bounded::Rx<i64>, next: &bounded::Tx<i64>, laps: usize) -> Result<i64> {
    next.send(1).await.map_err(|_| "the ring broke")?;
    for lap in 1.. {
        let count = inbox.recv().await.ok_or("the ring broke")?;
        if lap == laps {
            return Ok(count);
        }
        next.send(count + 1).await.map_err(|_| "the ring broke")?;
    }
    unreachable!("the laps end the loop")
}

async fn pass_monoio(inbox: &mut bounded::Rx<i64>, next: &bounded::Tx<i64>) -> Result {
    while let Some(count) = inbox.recv().await {
        next.send(count + 1).await.map_err(|_| "the ring broke")?;
    }
    Ok(())
}
