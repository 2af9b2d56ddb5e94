// Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
// 1..`messages` in order to a receiver unit's mailbox, which holds at most
// `capacity` messages (0: no bound); the receiver takes exactly `messages`,
// counting and summing them and adding k x payload of its k-th message to a
// checksum modulo 1,000,000,007, and hands its totals back to the caller.
//
// blocked: sends that found the mailbox full (a try_send first) and takes
// that found it empty (a try_recv first; tokio's receive polled once, see
// TokioReceiver::recv), each then made as the send or receive that waits;
// each unit counts its own, summed after both are awaited.
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::{Context, Poll};
use std::thread;

use local_sync::mpsc::{bounded, unbounded, TryRecvError};
use tokio::sync::mpsc;
use tokio::task::coop;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", mailbox_threads),
    ("tokio", |run| mailbox_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| mailbox_tasks(run, Flavor::CurrentThread)),
    ("smol", mailbox_smol),
    ("monoio", mailbox_monoio),
];

const MODULUS: i64 = 1_000_000_007;

/// What the receiver took, and the takes that waited.
#[derive(Default)]
struct Totals {
    count: i64,
    sum: i64,
    ordered: i64,
    blocked: i64,
}

impl Totals {
    fn take(&mut self, payload: i64) {
        self.count += 1;
        let k = self.count; // the k-th message
        self.sum += payload;
        self.ordered = (self.ordered + k % MODULUS * (payload % MODULUS)) % MODULUS;
    }

    fn report(self, run: &mut Run, sent_blocked: i64) {
        run.result("count", self.count);
        run.result("sum", self.sum);
        run.result("ordered", self.ordered);
        run.evidence("blocked", self.blocked + sent_blocked);
    }
}

/// Two threads and a crossbeam channel: bounded to `capacity`, or unbounded
/// for 0; a sender or receiver that waits parks its thread.
fn mailbox_threads(run: &mut Run) -> Result {
    let (messages, capacity) = (run.int("messages"), run.count("capacity"));
    let units = run.units();
    let (sender, receiver) = match capacity {
        0 => crossbeam_channel::unbounded(),
        capacity => crossbeam_channel::bounded(capacity),
    };
    let (sent, totals) = thread::scope(|scope| -> Result<_> {
        // On an early return the scope joins the one started: the other
        // end is dropped, so its send or receive fails.
        let sending = threads::spawn(scope, &units, move || send_all(&sender, messages))?;
        let taking = threads::spawn(scope, &units, move || take_all(&receiver, messages))?;
        Ok((threads::join(sending)?, threads::join(taking)?))
    })?;
    totals.report(run, sent);
    Ok(())
}

/// Sends 1..=messages: the sends that found the mailbox full.
fn send_all(sender: &crossbeam_channel::Sender<i64>, messages: i64) -> Result<i64> {
    let mut blocked = 0;
    for payload in 1..=messages {
        match sender.try_send(payload) {
            Ok(()) => {}
            Err(crossbeam_channel::TrySendError::Full(payload)) => {
                blocked += 1;
                sender.send(payload)?;
            }
            Err(crossbeam_channel::TrySendError::Disconnected(_)) => return Err("the receiver is gone".into()),
        }
    }
    Ok(blocked)
}

fn take_all(receiver: &crossbeam_channel::Receiver<i64>, messages: i64) -> Result<Totals> {
    let mut totals = Totals::default();
    for _ in 0..messages {
        let payload = match receiver.try_recv() {
            Ok(payload) => payload,
            Err(crossbeam_channel::TryRecvError::Empty) => {
                totals.blocked += 1;
                receiver.recv()?
            }
            Err(crossbeam_channel::TryRecvError::Disconnected) => return Err("the sender is gone".into()),
        };
        totals.take(payload);
    }
    Ok(totals)
}

/// Two tasks and a tokio mpsc channel, the actor's mailbox in tokio:
/// bounded to `capacity`, or unbounded for 0 (no send waits). A sender or
/// receiver that waits yields its task.
fn mailbox_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (messages, capacity) = (run.int("messages"), run.count("capacity"));
    let units = run.units();
    let work = async move {
        let (sender, mut receiver) = open_tokio_mailbox(capacity);
        let sending = tasks::spawn(&units, async move { send_all_async(&sender, messages).await });
        let taking = tasks::spawn(&units, async move { take_all_async(&mut receiver, messages).await });
        Ok::<_, crate::kit::Error>((tasks::join(sending).await?, tasks::join(taking).await?))
    };
    let (sent, totals) = tasks::block_on(run, flavor, work)??;
    totals.report(run, sent);
    Ok(())
}

/// One end of a mailbox: a runtime's bounded and unbounded channels are
/// different types (tokio's, local-sync's).
enum End<Bounded, Unbounded> {
    Bounded(Bounded),
    Unbounded(Unbounded),
}

type TokioSender = End<mpsc::Sender<i64>, mpsc::UnboundedSender<i64>>;
type TokioReceiver = End<mpsc::Receiver<i64>, mpsc::UnboundedReceiver<i64>>;

/// A tokio channel bounded to `capacity`, or unbounded for 0.
fn open_tokio_mailbox(capacity: usize) -> (TokioSender, TokioReceiver) {
    match capacity {
        0 => {
            let (sender, receiver) = mpsc::unbounded_channel();
            (End::Unbounded(sender), End::Unbounded(receiver))
        }
        capacity => {
            let (sender, receiver) = mpsc::channel(capacity);
            (End::Bounded(sender), End::Bounded(receiver))
        }
    }
}

impl TokioSender {
    /// Sends one payload: whether it found the mailbox full (a try_send
    /// first), and so waited for room. An unbounded mailbox is never full.
    async fn send(&self, payload: i64) -> Result<bool> {
        const GONE: &str = "the receiver is gone";
        match self {
            Self::Unbounded(sender) => sender.send(payload).map(|()| false).map_err(|_| GONE.into()),
            Self::Bounded(sender) => match sender.try_send(payload) {
                Ok(()) => Ok(false),
                Err(mpsc::error::TrySendError::Full(payload)) => {
                    sender.send(payload).await.map_err(|_| GONE)?;
                    Ok(true)
                }
                Err(mpsc::error::TrySendError::Closed(_)) => Err(GONE.into()),
            },
        }
    }
}

impl TokioReceiver {
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<i64>> {
        match self {
            Self::Bounded(receiver) => receiver.poll_recv(cx),
            Self::Unbounded(receiver) => receiver.poll_recv(cx),
        }
    }

    /// Takes one payload: whether it found the mailbox empty, and so
    /// waited. Not tokio's try_recv first: on a send half-written it parks
    /// the worker thread until the send is done, which an await never does.
    /// The receive is polled once, which takes a payload at once if there
    /// is one, and only if that finds none is it awaited. A task out of its
    /// coop budget gets Pending from any poll, empty or not: it yields
    /// first, as its await would, and the poll that counts has budget.
    async fn recv(&mut self) -> Result<(i64, bool)> {
        if !coop::has_budget_remaining() {
            coop::consume_budget().await;
        }
        let (taken, blocked) = match poll_fn(|cx| Poll::Ready(self.poll_recv(cx))).await {
            Poll::Ready(taken) => (taken, false),
            Poll::Pending => (poll_fn(|cx| self.poll_recv(cx)).await, true),
        };
        Ok((taken.ok_or("the sender is gone")?, blocked))
    }
}

async fn send_all_async(sender: &TokioSender, messages: i64) -> Result<i64> {
    let mut blocked = 0;
    for payload in 1..=messages {
        blocked += i64::from(sender.send(payload).await?);
    }
    Ok(blocked)
}

async fn take_all_async(receiver: &mut TokioReceiver, messages: i64) -> Result<Totals> {
    let mut totals = Totals::default();
    for _ in 0..messages {
        let (payload, blocked) = receiver.recv().await?;
        totals.blocked += i64::from(blocked);
        totals.take(payload);
    }
    Ok(totals)
}

/// Two smol tasks and a smol::channel: bounded to `capacity`, or unbounded
/// for 0. A sender or receiver that waits yields its task.
fn mailbox_smol(run: &mut Run) -> Result {
    let (messages, capacity) = (run.int("messages"), run.count("capacity"));
    let work = move |tasks: smol_tasks::Tasks| async move {
        let (sender, receiver) = match capacity {
            0 => smol::channel::unbounded(),
            capacity => smol::channel::bounded(capacity),
        };
        let sending = tasks.spawn(async move { send_all_smol(&sender, messages).await });
        let taking = tasks.spawn(async move { take_all_smol(&receiver, messages).await });
        Ok::<_, crate::kit::Error>((sending.await?, taking.await?))
    };
    let (sent, totals) = smol_tasks::block_on(run, work)??;
    totals.report(run, sent);
    Ok(())
}

async fn send_all_smol(sender: &smol::channel::Sender<i64>, messages: i64) -> Result<i64> {
    let mut blocked = 0;
    for payload in 1..=messages {
        match sender.try_send(payload) {
            Ok(()) => {}
            Err(smol::channel::TrySendError::Full(payload)) => {
                blocked += 1;
                sender.send(payload).await?;
            }
            Err(smol::channel::TrySendError::Closed(_)) => return Err("the receiver is gone".into()),
        }
    }
    Ok(blocked)
}

async fn take_all_smol(receiver: &smol::channel::Receiver<i64>, messages: i64) -> Result<Totals> {
    let mut totals = Totals::default();
    for _ in 0..messages {
        let payload = match receiver.try_recv() {
            Ok(payload) => payload,
            Err(smol::channel::TryRecvError::Empty) => {
                totals.blocked += 1;
                receiver.recv().await?
            }
            Err(smol::channel::TryRecvError::Closed) => return Err("the sender is gone".into()),
        };
        totals.take(payload);
    }
    Ok(totals)
}

/// Two monoio tasks and local-sync's channel, monoio's single-thread mpsc:
/// bounded to `capacity`, or unbounded for 0 (no send waits). A sender or
/// receiver that waits yields its task.
fn mailbox_monoio(run: &mut Run) -> Result {
    let (messages, capacity) = (run.int("messages"), run.count("capacity"));
    let units = run.units();
    let work = async move {
        let (sender, mut receiver) = open_monoio_mailbox(capacity);
        let sending = monoio_tasks::spawn(&units, async move { send_all_monoio(&sender, messages).await });
        let taking = monoio_tasks::spawn(&units, async move { take_all_monoio(&mut receiver, messages).await });
        Ok::<_, crate::kit::Error>((sending.await?, taking.await?))
    };
    let (sent, totals) = monoio_tasks::block_on(run, work)??;
    totals.report(run, sent);
    Ok(())
}

type MonoioSender = End<bounded::Tx<i64>, unbounded::Tx<i64>>;
type MonoioReceiver = End<bounded::Rx<i64>, unbounded::Rx<i64>>;

/// A local-sync channel bounded to `capacity`, or unbounded for 0.
fn open_monoio_mailbox(capacity: usize) -> (MonoioSender, MonoioReceiver) {
    match capacity {
        0 => {
            let (sender, receiver) = unbounded::channel();
            (End::Unbounded(sender), End::Unbounded(receiver))
        }
        capacity => {
            let (sender, receiver) = bounded::channel(capacity);
            (End::Bounded(sender), End::Bounded(receiver))
        }
    }
}

impl MonoioSender {
    /// Sends one payload: whether it found the mailbox full, and so waited
    /// for room. local-sync's bounded sender has no try_send: a send is
    /// polled once, which takes room at once if there is any (what try_send
    /// does), and only if that finds none is it awaited. An unbounded
    /// mailbox is never full.
    async fn send(&self, payload: i64) -> Result<bool> {
        const GONE: &str = "the receiver is gone";
        match self {
            Self::Unbounded(sender) => sender.send(payload).map(|()| false).map_err(|_| GONE.into()),
            Self::Bounded(sender) => {
                let mut sending = pin!(sender.send(payload));
                let (sent, blocked) = match poll_fn(|cx| Poll::Ready(sending.as_mut().poll(cx))).await {
                    Poll::Ready(sent) => (sent, false),
                    Poll::Pending => (sending.await, true),
                };
                sent.map(|()| blocked).map_err(|_| GONE.into())
            }
        }
    }
}

impl MonoioReceiver {
    fn try_recv(&mut self) -> std::result::Result<i64, TryRecvError> {
        match self {
            Self::Bounded(receiver) => receiver.try_recv(),
            Self::Unbounded(receiver) => receiver.try_recv(),
        }
    }

    async fn recv(&mut self) -> Option<i64> {
        match self {
            Self::Bounded(receiver) => receiver.recv().await,
            Self::Unbounded(receiver) => receiver.recv().await,
        }
    }
}

/// Sends 1..=messages: the sends that found the mailbox full.
async fn send_all_monoio(sender: &MonoioSender, messages: i64) -> Result<i64> {
    let mut blocked = 0;
    for payload in 1..=messages {
        blocked += i64::from(sender.send(payload).await?);
    }
    Ok(blocked)
}

async fn take_all_monoio(receiver: &mut MonoioReceiver, messages: i64) -> Result<Totals> {
    let mut totals = Totals::default();
    for _ in 0..messages {
        let payload = match receiver.try_recv() {
            Ok(payload) => payload,
            Err(TryRecvError::Empty) => {
                totals.blocked += 1;
                receiver.recv().await.ok_or("the sender is gone")?
            }
            Err(TryRecvError::Disconnected) => return Err("the sender is gone".into()),
        };
        totals.take(payload);
    }
    Ok(totals)
}
