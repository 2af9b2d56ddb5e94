// Ping-pong (workloads/ping-pong.toml): `pairs` pairs of units at once. In
// each, the pinger sends its ponger a count, starting at 0; the ponger sends
// back the count plus one, and the pinger sends that plus one again, until it
// has had `rounds` replies. Each pinger reports the last count it received;
// the caller awaits every unit and sums the counts.
//
// Each unit owns the receiving end of its own inbox and the sending end of
// its partner's. A pinger stops its ponger by returning, which drops its
// sender: the ponger's receive then ends and it returns. A pinger that fails
// (or a ponger whose pinger is never started) ends its pair the same way.
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
    ("thread", ping_pong_threads),
    ("tokio", |run| ping_pong_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| ping_pong_tasks(run, Flavor::CurrentThread)),
    ("smol", ping_pong_smol),
    ("monoio", ping_pong_monoio),
];

/// A pair's two channels, as its units hold them: the pinger's inbox and
/// the sender to its ponger, then the ponger's inbox and the sender back.
fn pair<S, R>(channel: impl Fn() -> (S, R)) -> ((R, S), (R, S)) {
    let (to_ponger, ponger_inbox) = channel();
    let (to_pinger, pinger_inbox) = channel();
    ((pinger_inbox, to_ponger), (ponger_inbox, to_pinger))
}

/// A thread per unit, each pair talking over two zero-capacity (rendezvous)
/// crossbeam channels, so that a send waits for the partner to take it.
fn ping_pong_threads(run: &mut Run) -> Result {
    let (pairs, rounds) = (run.count("pairs"), run.count("rounds"));
    let units = run.units();
    let count = thread::scope(|scope| -> Result<i64> {
        let (mut pingers, mut pongers) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        for _ in 0..pairs {
            // On an early return the scope still joins the units started:
            // each pinger plays its rounds, and its ponger then ends.
            let ((inbox, ponger), (ponger_inbox, pinger)) = pair(|| crossbeam_channel::bounded(0));
            pongers.push(threads::spawn(scope, &units, move || pong(&ponger_inbox, &pinger))?);
            pingers.push(threads::spawn(scope, &units, move || ping(&inbox, &ponger, rounds))?);
        }
        let count = pingers.into_iter().map(threads::join).sum::<Result<i64>>()?;
        pongers.into_iter().try_for_each(threads::join)?;
        Ok(count)
    })?;
    run.result("count", count);
    Ok(())
}

/// The pinger: sends, awaits the reply, and returns the last one.
fn ping(inbox: &Receiver<i64>, ponger: &Sender<i64>, rounds: usize) -> Result<i64> {
    let mut reply = -1; // so that the first count sent is 0
    for _ in 0..rounds {
        ponger.send(reply + 1)?;
        reply = inbox.recv()?;
    }
    Ok(reply)
}

fn pong(inbox: &Receiver<i64>, pinger: &Sender<i64>) -> Result {
    for count in inbox {
        pinger.send(count + 1)?;
    }
    Ok(())
}

/// A task per unit, each with a tokio mpsc channel of its own for its
/// inbox. tokio's channels have no rendezvous: the least bound is 1, which
/// is all a pair's one message in flight needs, so a send never waits.
fn ping_pong_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (pairs, rounds) = (run.count("pairs"), run.count("rounds"));
    let units = run.units();
    let work = async move {
        let (mut pingers, mut pongers) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        for _ in 0..pairs {
            let ((mut inbox, ponger), (mut ponger_inbox, pinger)) = pair(|| mpsc::channel(1));
            pongers.push(tasks::spawn(&units, async move { pong_async(&mut ponger_inbox, &pinger).await }));
            pingers.push(tasks::spawn(&units, async move { ping_async(&mut inbox, &ponger, rounds).await }));
        }
        let mut count = 0;
        for pinger in pingers {
            count += tasks::join(pinger).await?;
        }
        for ponger in pongers {
            tasks::join(ponger).await?;
        }
        Ok::<_, crate::kit::Error>(count)
    };
    let count = tasks::block_on(run, flavor, work)??;
    run.result("count", count);
    Ok(())
}

async fn ping_async(inbox: &mut mpsc::Receiver<i64>, ponger: &mpsc::Sender<i64>, rounds: usize) -> Result<i64> {
    let mut reply = -1; // so that the first count sent is 0
    for _ in 0..rounds {
        ponger.send(reply + 1).await?;
        reply = inbox.recv().await.ok_or("the ponger is gone")?;
    }
    Ok(reply)
}

async fn pong_async(inbox: &mut mpsc::Receiver<i64>, pinger: &mpsc::Sender<i64>) -> Result {
    while let Some(count) = inbox.recv().await {
        pinger.send(count + 1).await?;
    }
    Ok(())
}

/// A smol task per unit, each with a smol::channel of its own for its
/// inbox. async-channel has no rendezvous either (a bound of 0 panics): the
/// least bound is 1, as in the tokio row.
fn ping_pong_smol(run: &mut Run) -> Result {
    let (pairs, rounds) = (run.count("pairs"), run.count("rounds"));
    let work = move |tasks: smol_tasks::Tasks| async move {
        let (mut pingers, mut pongers) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        for _ in 0..pairs {
            let ((inbox, ponger), (ponger_inbox, pinger)) = pair(|| smol::channel::bounded(1));
            pongers.push(tasks.spawn(async move { pong_smol(&ponger_inbox, &pinger).await }));
            pingers.push(tasks.spawn(async move { ping_smol(&inbox, &ponger, rounds).await }));
        }
        let mut count = 0;
        for pinger in pingers {
            count += pinger.await?;
        }
        for ponger in pongers {
            ponger.await?;
        }
        Ok::<_, crate::kit::Error>(count)
    };
    let count = smol_tasks::block_on(run, work)??;
    run.result("count", count);
    Ok(())
}

async fn ping_smol(
    inbox: &smol::channel::Receiver<i64>,
    ponger: &smol::channel::Sender<i64>,
    rounds: usize,
) -> Result<i64> {
    let mut reply = -1; // so that the first count sent is 0
    for _ in 0..rounds {
        ponger.send(reply + 1).await?;
        reply = inbox.recv().await?;
    }
    Ok(reply)
}

async fn pong_smol(inbox: &smol::channel::Receiver<i64>, pinger: &smol::channel::Sender<i64>) -> Result {
    while let Ok(count) = inbox.recv().await {
        pinger.send(count + 1).await?;
    }
    Ok(())
}

/// A monoio task per unit, each with a local-sync channel of its own for its
/// inbox; as tokio's, local-sync's channels have no rendezvous, and a bound
/// of 1 is all a pair's one message in flight needs.
fn ping_pong_monoio(run: &mut Run) -> Result {
    let (pairs, rounds) = (run.count("pairs"), run.count("rounds"));
    let units = run.units();
    let work = async move {
        let (mut pingers, mut pongers) = (Vec::with_capacity(pairs), Vec::with_capacity(pairs));
        for _ in 0..pairs {
            let ((mut inbox, ponger), (mut ponger_inbox, pinger)) = pair(|| bounded::channel(1));
            pongers.push(monoio_tasks::spawn(&units, async move { pong_monoio(&mut ponger_inbox, &pinger).await }));
            pingers.push(monoio_tasks::spawn(&units, async move { ping_monoio(&mut inbox, &ponger, rounds).await }));
        }
        let mut count = 0;
        for pinger in pingers {
            count += pinger.await?;
        }
        for ponger in pongers {
            ponger.await?;
        }
        Ok::<_, crate::kit::Error>(count)
    };
    let count = monoio_tasks::block_on(run, work)??;
    run.result("count", count);
    Ok(())
}

async fn ping_monoio(inbox: &mut bounded::Rx<i64>, ponger: &bounded::Tx<i64>, rounds: usize) -> Result<i64> {
    let mut reply = -1; // so that the first count sent is 0
    for _ in 0..rounds {
        ponger.send(reply + 1).await.map_err(|_| "the ponger is gone")?;
        reply = inbox.recv().await.ok_or("the ponger is gone")?;
    }
    Ok(reply)
}

async fn pong_monoio(inbox: &mut bounded::Rx<i64>, pinger: &bounded::Tx<i64>) -> Result {
    while let Some(count) = inbox.recv().await {
        pinger.send(count + 1).await.map_err(|_| "the pinger is gone")?;
    }
    Ok(())
}
