// Queue (workloads/queue.toml): per group one queue; its `producers` units
// each push 1..`items`, and once every producer is done, one stop token per
// consumer is pushed (by the producer that finished last); its `consumers`
// units pop until they get a stop token, counting and summing what they
// popped.
//
// The queue is a multi-producer, multi-consumer channel holding at most
// `capacity` items, or, for capacity 0 (no bound, the seed's), an unbounded
// one. blocked: pushes that found the channel full (a try_send first) and
// pops that found it empty (a try_recv first), each then made as the send
// or receive that waits; each unit counts its own, summed after the units
// are awaited.
use std::sync::atomic::{AtomicUsize, Ordering::AcqRel};
use std::sync::Arc;
use std::thread;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::{Executor, Spawner};
use crate::shared::monoio::Monoio;
use crate::shared::smol::Smol;
use crate::shared::tasks::Flavor;
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", queue_threads),
    ("tokio", |run| queue_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| queue_tasks(run, Flavor::CurrentThread)),
    ("smol", |run| queue_tasks(run, Smol)),
    ("monoio", |run| queue_tasks(run, Monoio)),
];

const STOP: i64 = 0; // items are 1..=items

struct Params {
    groups: usize,
    producers: usize,
    consumers: usize,
    items: i64,
    capacity: usize,
}

impl Params {
    fn of(run: &Run) -> Params {
        Params {
            groups: run.count("groups"),
            producers: run.count("producers"),
            consumers: run.count("consumers"),
            items: run.int("items"),
            capacity: run.count("capacity"),
        }
    }
}

/// What a group's units did: what the consumers popped, and the pushes and
/// pops that waited.
#[derive(Default)]
struct Tally {
    count: i64,
    sum: i64,
    blocked: i64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.count += other.count;
        self.sum += other.sum;
        self.blocked += other.blocked;
    }

    fn report(self, run: &mut Run) -> Result {
        run.result("count", self.count);
        run.result("sum", self.sum);
        run.evidence("blocked", self.blocked);
        Ok(())
    }
}

/// One thread per producer and consumer; the channel is crossbeam-channel's,
/// whose blocked senders and receivers park their threads.
fn queue_threads(run: &mut Run) -> Result {
    let p = Params::of(run);
    let units = run.units();
    let tally = thread::scope(|scope| -> Result<Tally> {
        let (mut producers, mut consumers) = (Vec::new(), Vec::new());
        for _ in 0..p.groups {
            let (sender, receiver) = match p.capacity {
                0 => crossbeam_channel::unbounded(),
                capacity => crossbeam_channel::bounded(capacity),
            };
            let producing = Arc::new(AtomicUsize::new(p.producers));
            for _ in 0..p.producers {
                let (sender, producing, items, consumers) =
                    (sender.clone(), Arc::clone(&producing), p.items, p.consumers);
                producers.push(threads::spawn(scope, &units, move || {
                    produce(&sender, &producing, items, consumers)
                })?);
            }
            for _ in 0..p.consumers {
                let receiver = receiver.clone();
                consumers.push(threads::spawn(scope, &units, move || consume(&receiver))?);
            }
            // The group's own ends are dropped here: if every consumer
            // failed, a push fails rather than wait for ever.
        }
        let mut tally = Tally::default();
        for producer in producers {
            tally.blocked += threads::join(producer)?;
        }
        for consumer in consumers {
            tally.add(threads::join(consumer)?);
        }
        Ok(tally)
    })?;
    tally.report(run)
}

/// Pushes 1..=items, and the stop tokens if it finished last: the pushes
/// that found the channel full.
fn produce(
    sender: &crossbeam_channel::Sender<i64>,
    producing: &AtomicUsize,
    items: i64,
    consumers: usize,
) -> Result<i64> {
    let push = |value| match sender.try_send(value) {
        Ok(()) => Ok(0),
        Err(crossbeam_channel::TrySendError::Full(value)) => sender.send(value).map(|()| 1),
        Err(crossbeam_channel::TrySendError::Disconnected(value)) => Err(crossbeam_channel::SendError(value)),
    };
    let mut blocked = 0;
    for value in 1..=items {
        blocked += push(value)?;
    }
    if producing.fetch_sub(1, AcqRel) == 1 {
        for _ in 0..consumers {
            blocked += push(STOP)?;
        }
    }
    Ok(blocked)
}

/// Pops until a stop token: the count and sum of what it popped, and the
/// pops that found the channel empty.
fn consume(receiver: &crossbeam_channel::Receiver<i64>) -> Result<Tally> {
    let mut tally = Tally::default();
    loop {
        let value = match receiver.try_recv() {
            Ok(value) => value,
            Err(crossbeam_channel::TryRecvError::Empty) => {
                tally.blocked += 1;
                receiver.recv()?
            }
            Err(crossbeam_channel::TryRecvError::Disconnected) => return Err(crossbeam_channel::RecvError.into()),
        };
        if value == STOP {
            return Ok(tally);
        }
        tally.count += 1;
        tally.sum += value;
    }
}

/// One task per producer and consumer; the channel is async-channel's,
/// whose blocked senders and receivers yield their tasks on any runtime
/// (smol::channel is async-channel; local-sync's channels, monoio's, have
/// one receiver, and a group's consumers share theirs).
fn queue_tasks<E: Executor>(run: &mut Run, executor: E) -> Result {
    let p = Params::of(run);
    let work = move |tasks: E::Spawner| async move {
        let (mut producers, mut consumers) = (Vec::new(), Vec::new());
        for _ in 0..p.groups {
            let (sender, receiver) = match p.capacity {
                0 => async_channel::unbounded(),
                capacity => async_channel::bounded(capacity),
            };
            let producing = Arc::new(AtomicUsize::new(p.producers));
            for _ in 0..p.producers {
                let (sender, producing, items, consumers) =
                    (sender.clone(), Arc::clone(&producing), p.items, p.consumers);
                producers.push(tasks.spawn(async move { produce_async(&sender, &producing, items, consumers).await }));
            }
            for _ in 0..p.consumers {
                let receiver = receiver.clone();
                consumers.push(tasks.spawn(async move { consume_async(&receiver).await }));
            }
        }
        let mut tally = Tally::default();
        for producer in producers {
            tally.blocked += producer.await?;
        }
        for consumer in consumers {
            tally.add(consumer.await?);
        }
        Ok::<_, crate::kit::Error>(tally)
    };
    executor.block_on(run, work)??.report(run)
}

async fn push_async(sender: &async_channel::Sender<i64>, value: i64) -> Result<i64> {
    match sender.try_send(value) {
        Ok(()) => Ok(0),
        Err(async_channel::TrySendError::Full(value)) => Ok(sender.send(value).await.map(|()| 1)?),
        Err(async_channel::TrySendError::Closed(value)) => Err(async_channel::SendError(value).into()),
    }
}

async fn produce_async(
    sender: &async_channel::Sender<i64>,
    producing: &AtomicUsize,
    items: i64,
    consumers: usize,
) -> Result<i64> {
    let mut blocked = 0;
    for value in 1..=items {
        blocked += push_async(sender, value).await?;
    }
    if producing.fetch_sub(1, AcqRel) == 1 {
        for _ in 0..consumers {
            blocked += push_async(sender, STOP).await?;
        }
    }
    Ok(blocked)
}

async fn consume_async(receiver: &async_channel::Receiver<i64>) -> Result<Tally> {
    let mut tally = Tally::default();
    loop {
        let value = match receiver.try_recv() {
            Ok(value) => value,
            Err(async_channel::TryRecvError::Empty) => {
                tally.blocked += 1;
                receiver.recv().await?
            }
            Err(async_channel::TryRecvError::Closed) => return Err(async_channel::RecvError.into()),
        };
        if value == STOP {
            return Ok(tally);
        }
        tally.count += 1;
        tally.sum += value;
    }
}
