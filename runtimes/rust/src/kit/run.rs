//! A run of a mechanism: its parameters, its units, what it reports, and
//! the clocks around it.
use std::collections::BTreeMap;
use std::io;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// Any failure of a run: it ends the trial with exit 1.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T = ()> = std::result::Result<T, Error>;

/// One run: its parameters, and what it reports.
pub struct Run {
    params: Map<String, Value>,
    scratch: PathBuf,
    pub(super) units: Arc<Units>,
    pub(super) result: BTreeMap<&'static str, i64>,
    pub(super) evidence: BTreeMap<&'static str, i64>,
    pub(super) timed: Option<(Moment, Moment)>, // set by timed
    pub(super) flags: Vec<String>,              // set by flag
    pub(super) rate: Option<Moment>,            // set by rate: where its clocks started
    pub(super) stop: Option<Moment>,            // set by stop_clocks
    pub(super) batches: i64,                    // run by rate
}

/// Counts a run's units as they start and finish.
#[derive(Default)]
pub struct Units {
    pub(super) started: AtomicI64,
    pub(super) live: AtomicI64,
    pub(super) peak: AtomicI64,
}

impl Units {
    /// A unit's first act.
    pub fn start(&self) {
        self.started.fetch_add(1, Relaxed);
        // Every change of live is one step in its modification order (even
        // relaxed), so the values fetch_add returns are every value it took:
        // their maximum is the peak. The kit reads the counters after the
        // units are joined, which orders them before it.
        let live = self.live.fetch_add(1, Relaxed) + 1;
        self.peak.fetch_max(live, Relaxed);
    }

    /// A unit's last act.
    pub fn finish(&self) {
        self.live.fetch_sub(1, Relaxed);
    }

    /// Figures counted elsewhere, for units the run neither starts nor
    /// finishes (a library pool's threads, made before the clocks and alive
    /// after them): the units and the most alive at once. No other unit of
    /// the run may count itself.
    pub fn counted(&self, started: i64, peak: i64) {
        assert_eq!(self.started.load(Relaxed), 0, "a run counts its units one way");
        self.started.store(started, Relaxed);
        self.peak.store(peak, Relaxed);
    }
}

impl Run {
    pub(super) fn new(params: Map<String, Value>, scratch: PathBuf) -> Run {
        Run {
            params,
            scratch,
            units: Arc::default(),
            result: BTreeMap::new(),
            evidence: BTreeMap::new(),
            timed: None,
            flags: Vec::new(),
            rate: None,
            stop: None,
            batches: 0,
        }
    }

    /// The integer parameter `name`; a missing or malformed one panics, which
    /// fails the trial (the harness validates parameters, so this is a kit bug).
    pub fn int(&self, name: &str) -> i64 {
        match self.params.get(name).and_then(Value::as_i64) {
            Some(value) => value,
            None => panic!("parameter {name:?} is not an integer: {:?}", self.params.get(name)),
        }
    }

    /// The integer parameter `name`, a count of things (never negative).
    pub fn count(&self, name: &str) -> usize {
        let value = self.int(name);
        usize::try_from(value).unwrap_or_else(|_| panic!("parameter {name:?} is negative: {value}"))
    }

    /// The number parameter `name` (a rate workload's `seconds`).
    pub fn float(&self, name: &str) -> f64 {
        match self.params.get(name).and_then(Value::as_f64) {
            Some(value) => value,
            None => panic!("parameter {name:?} is not a number: {:?}", self.params.get(name)),
        }
    }

    /// The string parameter `name` (a choice such as `mode`).
    pub fn choice(&self, name: &str) -> &str {
        match self.params.get(name).and_then(Value::as_str) {
            Some(value) => value,
            None => panic!("parameter {name:?} is not a string: {:?}", self.params.get(name)),
        }
    }

    /// The run's unit counter, for its units to share.
    pub fn units(&self) -> Arc<Units> {
        Arc::clone(&self.units)
    }

    /// An empty directory the trial may use.
    pub fn scratch(&self) -> &Path {
        &self.scratch
    }

    /// Reports one of the values the spec's [expect] names.
    pub fn result(&mut self, name: &'static str, value: i64) {
        self.result.insert(name, value);
    }

    /// Reports one of the counts the spec declares under [evidence].
    pub fn evidence(&mut self, name: &'static str, count: i64) {
        self.evidence.insert(name, count);
    }

    /// Adds a flag in force to the answer's runtime (a tokio runtime's workers).
    pub fn flag(&mut self, flag: String) {
        if !self.flags.contains(&flag) {
            self.flags.push(flag);
        }
    }

    /// Says that the run's server listens on `address` ("tcp:127.0.0.1:PORT"
    /// or "unix:/path/echo.sock"): a line `{"listening": address}` on stdout
    /// before the answer, at once, from which the harness hands the address
    /// to its load generator. Called after the run's untimed setup, just
    /// before its timed work, which the generator's connections then meet.
    pub fn listening(&self, address: &str) -> io::Result<()> {
        super::protocol::announce(&serde_json::json!({ "listening": address }))
    }

    /// Runs the run's work, the only part the kit then times.
    pub fn timed<R>(&mut self, work: impl FnOnce() -> R) -> R {
        let start = Moment::now();
        let output = work();
        self.timed = Some((start, Moment::now()));
        output
    }

    /// Starts the clocks and runs `batch`, one batch of `batch` operations,
    /// until the time box (`seconds`) has passed, at least once, reading the
    /// clock once a batch. The clocks stop when the mechanism returns, or at
    /// `stop_clocks`. The closure is generic, so that a plain call's batch
    /// is inlined into the loop: none is timed as a hand-written loop.
    pub fn rate(&mut self, mut batch: impl FnMut()) {
        let deadline = self.start_rate();
        loop {
            batch();
            self.batches += 1;
            if Instant::now() >= deadline {
                return;
            }
        }
    }

    /// `rate` for a batch that awaits (tokio's tasks): the loop, owning
    /// what it needs, to run inside the mechanism's runtime (on a task of
    /// its own, if it likes); `rate_done` hands it back.
    pub fn rate_loop(&self) -> RateLoop {
        assert!(self.rate.is_none(), "rate called twice in one run");
        RateLoop {
            seconds: Duration::from_secs_f64(self.float("seconds")),
            start: None,
            deadline: None,
            stop: None,
            batches: 0,
        }
    }

    /// Takes back a RateLoop that has run: its clocks are the run's.
    pub fn rate_done(&mut self, rate: RateLoop) {
        self.rate = Some(rate.start.expect("rate_done before the loop ran"));
        self.stop = rate.stop;
        self.batches = rate.batches;
    }

    /// Ends a rate run's timed region before the mechanism returns: what it
    /// does after (shut a runtime down, restore a CPU affinity) is untimed.
    pub fn stop_clocks(&mut self) {
        self.stop.get_or_insert_with(Moment::now);
    }

    fn start_rate(&mut self) -> Instant {
        assert!(self.rate.is_none(), "rate called twice in one run");
        let seconds = Duration::from_secs_f64(self.float("seconds"));
        let start = Moment::now();
        self.rate = Some(start);
        start.wall + seconds
    }
}

/// A rate loop whose batches await (Run::rate_loop): its clocks, and its
/// count of batches. It takes no closure, as Run::rate does: the mechanism
/// writes the loop itself (an async closure's future cannot yet be proven
/// Send for tokio::spawn), as
///
///     rate.start();
///     loop {
///         /* one batch */
///         if !rate.next_batch() {
///             break;
///         }
///     }
pub struct RateLoop {
    seconds: Duration,
    start: Option<Moment>,
    deadline: Option<Instant>,
    stop: Option<Moment>,
    batches: i64,
}

impl RateLoop {
    /// Starts the clocks.
    pub fn start(&mut self) {
        assert!(self.start.is_none(), "rate called twice in one run");
        let start = Moment::now();
        self.start = Some(start);
        self.deadline = Some(start.wall + self.seconds);
    }

    /// Counts the batch just run: whether another is due (the time box has
    /// not yet passed), reading the clock once.
    pub fn next_batch(&mut self) -> bool {
        self.batches += 1;
        Instant::now() < self.deadline.expect("next_batch before start")
    }

    /// Stops the clocks, once what is outstanding has been awaited.
    pub fn stop_clocks(&mut self) {
        self.stop.get_or_insert_with(Moment::now);
    }
}

/// A moment, by the monotonic clock and the process's CPU time.
#[derive(Clone, Copy)]
pub(super) struct Moment {
    pub wall: Instant,
    pub user_ns: i64,
    pub sys_ns: i64,
}

impl Moment {
    /// Now: getrusage(RUSAGE_SELF) covers every thread of the process and
    /// the children it waited for; std has no call for it.
    pub fn now() -> Moment {
        let mut usage = MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage fills the rusage it is given, which lives here.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
            panic!("getrusage: {}", io::Error::last_os_error());
        }
        // SAFETY: zeroed, then filled by a successful getrusage.
        let usage = unsafe { usage.assume_init() };
        let ns = |time: libc::timeval| time.tv_sec * 1_000_000_000 + time.tv_usec * 1_000;
        Moment {
            wall: Instant::now(),
            user_ns: ns(usage.ru_utime),
            sys_ns: ns(usage.ru_stime),
        }
    }
}
