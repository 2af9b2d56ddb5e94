//! A run of a mechanism: its parameters, its units, what it reports, and
//! the clocks around it.
use std::collections::BTreeMap;
use std::io;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

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

    /// Runs the run's work, the only part the kit then times.
    pub fn timed<R>(&mut self, work: impl FnOnce() -> R) -> R {
        let start = Moment::now();
        let output = work();
        self.timed = Some((start, Moment::now()));
        output
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
