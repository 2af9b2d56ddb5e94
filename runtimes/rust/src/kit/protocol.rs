//! The trial protocol (docs/protocol.md): one JSON request on stdin, one
//! JSON answer as the last line of stdout.
use std::any::Any;
use std::backtrace::Backtrace;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::os::fd::AsFd;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::OnceLock;
use std::thread;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::registry::{self, Mechanism, Registry};
use super::run::{Moment, Run};
use super::Result;

#[derive(Deserialize)]
struct Request {
    kind: String,
    #[serde(default)]
    workload: String,
    #[serde(default)]
    mechanism: String,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    warmup: usize,
    #[serde(default)]
    runs: usize,
    #[serde(default)]
    scratch: PathBuf,
}

#[derive(Serialize, Default)]
struct Answer {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    runtime: Runtime,
    runs: Vec<RunAnswer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    implements: Option<BTreeMap<&'static str, Vec<&'static str>>>,
}

#[derive(Serialize, Default)]
struct Runtime {
    name: &'static str,
    version: &'static str,
    flags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallelism: Option<usize>,
}

#[derive(Serialize)]
struct RunAnswer {
    warmup: bool,
    wall_ns: i64,
    user_ns: i64,
    sys_ns: i64,
    units: i64,
    peak_live: i64,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    evidence: BTreeMap<&'static str, i64>,
    result: BTreeMap<&'static str, i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ops: Option<i64>, // a rate run's: batches x batch
}

/// A request the kit cannot serve: a clean answer, not a failure.
#[derive(Debug)]
struct Refusal(String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// Stdout as the kit found it, set aside for the answer and the lines a
/// run announces before it (answer_channel).
static ANSWER_CHANNEL: OnceLock<File> = OnceLock::new();

/// Serves one trial: the request on stdin, the answer as the last line of
/// stdout (docs/protocol.md); exits 0, or 1 on a failure (details on stderr).
pub fn main(registry: Registry) -> ! {
    // Anything else written to stdout (by a crate, say) goes to stderr.
    let out = answer_channel().unwrap_or_else(|err| {
        eprintln!("concbench-rust: setting stdout aside: {err}");
        process::exit(1)
    });
    let out = ANSWER_CHANNEL.get_or_init(|| out);
    // A panic (a kit bug, a unit's) says where, with its stack, on stderr.
    panic::set_hook(Box::new(|info| eprintln!("{info}\n{}", Backtrace::force_capture())));
    let mut flags = Vec::new();
    let (mut reply, code) = match panic::catch_unwind(AssertUnwindSafe(|| serve(registry, &mut flags))) {
        Ok(Ok(reply)) => (reply, 0),
        Ok(Err(err)) if err.is::<Refusal>() => (failure(err.to_string()), 0),
        Ok(Err(err)) => {
            let said = one_line(&*err);
            eprintln!("concbench-rust: {said}");
            (failure(said), 1)
        }
        Err(payload) => (failure(format!("panic: {}", panic_message(&*payload))), 1),
    };
    reply.runtime = Runtime {
        name: "rust",
        version: env!("CONCBENCH_RUSTC_VERSION"),
        flags: build_flags(),
        parallelism: parallelism(),
    };
    reply.runtime.flags.extend(flags);
    if let Err(err) = write_line(out, &reply) {
        eprintln!("concbench-rust: writing the answer: {err}");
        process::exit(1)
    }
    process::exit(code)
}

/// Writes a line before the answer on stdout: a run's announcement (a
/// server's `{"listening": ...}`), which the harness reads as it comes.
pub(super) fn announce(line: &impl Serialize) -> io::Result<()> {
    let out = ANSWER_CHANNEL.get().expect("a run announces only in a trial");
    write_line(out, line)
}

/// `value` as one line of JSON, in one write: the channel is a File, not
/// buffered, so the line leaves at once and whole.
fn write_line(mut out: &File, value: &impl Serialize) -> io::Result<()> {
    let mut line = serde_json::to_vec(value).expect("a line serializes");
    line.push(b'\n');
    out.write_all(&line)
}

/// The CPUs the runtimes are sized to (docs/protocol.md, "CPUs"):
/// std's available_parallelism, the count tokio's multi-thread runtime,
/// rayon's pools and the kit's smol executor and worker-modes threads take
/// as "one per core". It reads the affinity mask (sched_getaffinity) and
/// the cgroup's CPU quota, so a trial confined to 1 CPU gets 1.
fn parallelism() -> Option<usize> {
    thread::available_parallelism().ok().map(NonZeroUsize::get)
}

/// The flags the kit was built with: the cargo profile, its opt-level and
/// the crates it depends on, "name version" each (build.rs).
fn build_flags() -> Vec<String> {
    let mut flags = vec![
        env!("CONCBENCH_PROFILE").to_string(),
        concat!("opt-level=", env!("CONCBENCH_OPT_LEVEL")).into(),
    ];
    flags.extend(
        env!("CONCBENCH_CRATES")
            .split(',')
            .filter(|name| !name.is_empty())
            .map(String::from),
    );
    flags
}

/// A copy of stdout for the answer alone; stdout itself (descriptor 1)
/// becomes a copy of stderr.
fn answer_channel() -> io::Result<File> {
    let out = io::stdout().as_fd().try_clone_to_owned()?;
    // SAFETY: dup2 on two descriptors the process has open; no Rust object
    // owns descriptor 1 (std's Stdout only writes to it).
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(File::from(out))
}

fn failure(error: String) -> Answer {
    Answer {
        error: Some(error),
        ..Answer::default()
    }
}

fn serve(registry: Registry, flags: &mut Vec<String>) -> Result<Answer> {
    if let Some(arg) = std::env::args().nth(1) {
        return Err(format!("unknown argument {arg:?} (the kit takes none)").into());
    }
    let request: Request =
        serde_json::from_reader(io::stdin().lock()).map_err(|err| format!("reading the request: {err}"))?;
    match request.kind.as_str() {
        "floor" => {
            return Ok(Answer {
                ok: true,
                ..Answer::default()
            })
        }
        "list" => {
            return Ok(Answer {
                ok: true,
                implements: Some(registry::implemented(registry)),
                ..Answer::default()
            })
        }
        "fixed" | "rate" => {}
        kind => return Err(Refusal(format!("unknown kind {kind:?}")).into()),
    }
    let Some(mechanism) = registry::find(registry, &request.workload, &request.mechanism) else {
        let why = format!(
            "mechanism {:?} is not implemented for workload {:?}",
            request.mechanism, request.workload
        );
        return Err(Refusal(why).into());
    };
    let mut runs = Vec::with_capacity(request.warmup + request.runs);
    for i in 0..request.warmup + request.runs {
        runs.push(measure(mechanism, &request, i < request.warmup, flags)?);
    }
    Ok(Answer {
        ok: true,
        runs,
        ..Answer::default()
    })
}

/// Does one run: the clocks around the mechanism, or around its timed work.
fn measure(mechanism: Mechanism, request: &Request, warmup: bool, flags: &mut Vec<String>) -> Result<RunAnswer> {
    let mut run = Run::new(request.params.clone(), request.scratch.clone());
    let start = Moment::now();
    let outcome = mechanism(&mut run);
    let stop = Moment::now();
    outcome?;
    let rate = request.kind == "rate";
    let (start, stop) = match (run.rate, run.timed) {
        (None, _) if rate => return Err("a rate workload's mechanism must hand the kit its batches (Run::rate)".into()),
        (Some(start), _) => (start, run.stop.unwrap_or(stop)),
        (None, timed) => timed.unwrap_or((start, stop)),
    };
    let ops = rate.then(|| run.batches * run.int("batch"));
    let units = |count: &AtomicI64| count.load(Relaxed);
    let live = units(&run.units.live);
    if live != 0 {
        return Err(format!("{live} units still alive after the run: a mechanism awaits every unit it starts").into());
    }
    for flag in run.flags {
        if !flags.contains(&flag) {
            flags.push(flag);
        }
    }
    let wall_ns = i64::try_from(stop.wall.duration_since(start.wall).as_nanos()).unwrap_or(i64::MAX);
    Ok(RunAnswer {
        warmup,
        wall_ns: wall_ns.max(1),
        user_ns: (stop.user_ns - start.user_ns).max(0),
        sys_ns: (stop.sys_ns - start.sys_ns).max(0),
        units: units(&run.units.started),
        peak_live: units(&run.units.peak),
        evidence: run.evidence,
        result: run.result,
        ops,
    })
}

/// An error and its sources, on one line.
fn one_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(text), _) => text,
        (_, Some(text)) => text.as_str(),
        _ => "a panic without a message",
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
