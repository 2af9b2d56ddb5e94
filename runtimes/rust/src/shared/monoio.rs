//! Units as monoio tasks: monoio's thread-per-core model with one core, the
//! trial's thread. One runtime, whose driver is an io_uring (monoio's
//! IoUringDriver only, no epoll fallback: the row is io_uring or it fails)
//! with monoio's timer, runs every unit as a task (monoio::spawn). A task's
//! JoinHandle is its result: monoio does not catch a task's panic, which
//! unwinds through block_on and fails the trial.
use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::pin;
use std::process;
use std::sync::Arc;
use std::task::{Poll, Waker};

use monoio::task::JoinHandle;
use monoio::time::TimeDriver;
use monoio::{IoUringDriver, RuntimeBuilder};

use super::counted;
use super::executor::{Executor, Spawner};
use crate::kit::{Result, Run, Units};

/// The ring's submission queue: monoio's default size, set here so that the
/// answer's flag states it.
const RING_ENTRIES: u32 = 1024;

/// A monoio runtime on this thread, built before the clocks and dropped
/// after them.
pub struct Runtime(monoio::Runtime<TimeDriver<IoUringDriver>>);

impl Runtime {
    /// A new runtime; the answer's flags say which.
    pub fn new(run: &mut Run) -> io::Result<Runtime> {
        let runtime = RuntimeBuilder::<IoUringDriver>::new()
            .with_entries(RING_ENTRIES)
            .enable_timer()
            .build()?;
        run.flag(format!("monoio IoUringDriver entries={RING_ENTRIES}"));
        Ok(Runtime(runtime))
    }

    /// Runs `work` on the runtime until it is done; the tasks that yielded
    /// are woken each time monoio polls it (yield_now).
    pub fn block_on<F: Future>(&mut self, work: F) -> F::Output {
        self.0.block_on(waking_yielded(work))
    }
}

/// Exits 0 if a runtime on io_uring can be made here, or 1 with the reason.
pub fn probe() -> ! {
    match RuntimeBuilder::<IoUringDriver>::new()
        .with_entries(RING_ENTRIES)
        .build()
    {
        Ok(_) => {
            println!("io_uring ring");
            process::exit(0)
        }
        Err(err) => {
            println!("io_uring: {err}");
            process::exit(1)
        }
    }
}

/// Runs `work` on a new runtime, as the run's timed work: the runtime is
/// built before the clocks and dropped after them.
pub fn block_on<F: Future>(run: &mut Run, work: F) -> Result<F::Output> {
    let mut runtime = Runtime::new(run)?;
    let output = run.timed(|| runtime.block_on(work));
    drop(runtime);
    Ok(output)
}

/// Spawns a task whose body is one unit.
pub fn spawn<F>(units: &Arc<Units>, body: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    monoio::spawn(counted::unit(units, body))
}

/// monoio's runtime, as a workload written once for every runtime sees it.
#[derive(Clone, Copy)]
pub struct Monoio;

impl Executor for Monoio {
    type Spawner = Tasks;

    fn block_on<F>(self, run: &mut Run, work: impl FnOnce(Tasks) -> F) -> Result<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let work = work(Tasks { units: run.units() });
        block_on(run, work)
    }
}

/// Spawns the run's units on the runtime of the thread the work runs on.
#[derive(Clone)]
pub struct Tasks {
    units: Arc<Units>,
}

impl Spawner for Tasks {
    type Task<T: Send + 'static> = JoinHandle<T>;

    fn spawn<F>(&self, body: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn(&self.units, body)
    }
}

/// The wakers of the tasks that yielded, and of the future the runtime
/// blocks on, which wakes them (yield_now).
#[derive(Default)]
struct Yielded {
    tasks: Vec<Waker>,
    blocked_on: Option<Waker>,
}

thread_local! {
    static YIELDED: RefCell<Yielded> = RefCell::default();
}

/// Yields the task to monoio's scheduler: it runs again after the tasks
/// ready now. monoio 0.2.4 has no yield_now, and the usual one (wake the
/// task and return Pending once, as tokio's and futures-lite's do) does not
/// yield there: a task woken while it runs is put back at the front of the
/// run queue and polled again at once, before any other task (monoio issue
/// #322; PR #362 fixed it after 0.2.4, in no release). So the wake is
/// deferred, as tokio's yield_now defers its own: the waker waits until
/// monoio next polls the future the runtime blocks on, after its round of
/// ready tasks, which wakes it then, to the back of the queue. That future
/// cannot yield itself: monoio polls it again at once when it is woken.
pub async fn yield_now() {
    let mut deferred = false;
    poll_fn(|cx| {
        if deferred {
            return Poll::Ready(());
        }
        deferred = true;
        YIELDED.with_borrow_mut(|yielded| {
            yielded.tasks.push(cx.waker().clone());
            let blocked_on = yielded
                .blocked_on
                .as_ref()
                .expect("yield_now outside Runtime::block_on");
            blocked_on.wake_by_ref();
        });
        Poll::Pending
    })
    .await
}

/// `work`, waking the tasks that yielded each time it is polled. A wake only
/// queues its task on monoio's run queue: the list may stay borrowed.
async fn waking_yielded<F: Future>(work: F) -> F::Output {
    let mut work = pin!(work);
    poll_fn(|cx| {
        YIELDED.with_borrow_mut(|yielded| {
            yielded.blocked_on = Some(cx.waker().clone());
            yielded.tasks.drain(..).for_each(Waker::wake);
        });
        work.as_mut().poll(cx)
    })
    .await
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use monoio::{IoUringDriver, RuntimeBuilder};

    use super::yield_now;

    /// A task that yields resumes after another task that was ready: a
    /// partner bumping a counter between its own yields moves it across
    /// every yield of the measured task.
    #[test]
    fn yield_now_lets_a_ready_task_run() {
        let mut runtime = super::Runtime(RuntimeBuilder::<IoUringDriver>::new().enable_timer().build().unwrap());
        let (turn, stop) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(false)));
        let partner = {
            let (turn, stop) = (Rc::clone(&turn), Rc::clone(&stop));
            async move {
                while !stop.get() {
                    turn.set(turn.get() + 1);
                    yield_now().await;
                }
            }
        };
        let measured = async move {
            let mut switched = 0;
            for _ in 0..100 {
                let seen = turn.get();
                yield_now().await;
                switched += i32::from(turn.get() != seen);
            }
            stop.set(true);
            switched
        };
        let switched = runtime.block_on(async {
            let (measured, partner) = (monoio::spawn(measured), monoio::spawn(partner));
            partner.await;
            measured.await
        });
        assert_eq!(switched, 100);
    }
}
