// The Node.js kit (CommonJS): one trial per process, as docs/protocol.md
// says. It reads the request on stdin, runs the workload's mechanism
// warmup + runs times and prints the response as the last line of stdout.
//
// The workload API
// ================
// runtimes/node/workloads/<id>.js exports one function per mechanism, named
// after it (the manifest's names; other exports, such as the bodies that
// workers and child processes run, are not mechanisms). A mechanism is
// called with the run (a Run, below), may be async, and returns the run's
// `result` (an object of integers).
//
// Fixed workloads. The kit times the whole call, unless the mechanism hands
// the kit its work: `await run.timed(async () => ...)`, whose value it
// returns. Only that call is then timed; what the mechanism does before
// (make the files the work writes into, compile a pattern) and after (read
// the files' sizes, remove them) is untimed: the protocol's "untimed steps
// around a run". What every run only reads (a table to look up) a workload
// file may make once a trial instead: the kit calls its export
// prepare(params), if it has one, before the first run, untimed, and each
// run finds its value as run.prepared (Ruby's kit has the same hook).
//
// Servers (echo). The mechanism listens before the timing, then says where
// with run.listening(server) (a listening net.Server): one line on stdout
// ahead of the answer, which the harness hands to its load generator; its
// timed work follows at once.
//
// Rate workloads. The mechanism sets up (untimed), then hands the kit one
// whole batch of `batch` operations: `await run.rate(batch)`. The kit starts
// the clocks and calls it until `seconds` have passed, reading the clock once
// a batch; a batch that returns a promise is awaited, one that returns
// nothing is a plain loop (none: a bare hand-written loop). The mechanism
// then, still timed, awaits what is outstanding and returns; the kit stops
// the clocks when the mechanism's promise settles.
//
// Units and peak_live (protocol: "Evidence"). On the main thread a unit
// calls run.units.start() as the first act of its body and
// run.units.finish() as its last: plain counters, since JavaScript on one
// thread is never interrupted between a read and a write. A worker thread
// counts on the run's shared counters (run.units.shared, a SharedArrayBuffer
// handed to it; lib/workers.js), with Atomics. A child process cannot reach
// either: lib/processes.js stamps its body and the kit sweeps the stamps
// (run.units.spans) after the clocks stop. What the counting costs where it
// weighs most (a promise made per operation): see COUNTING_COST below.
//
// Evidence: run.evidence({name: count}) reports the counts the workload's
// spec declares under [evidence]; null where the mechanism cannot observe
// one (say why there). Each unit counts in a variable of its own; the
// mechanism sums them after it has awaited the units.
//
// Garbage is collected before every run, warm-up or timed, outside the
// clocks (docs/extending.md, "Settled policies"): gc(), which the manifest's
// command exposes with --expose-gc (the flags show it), or on Bun bun:jsc's
// edenGC(): the young generation, on either engine. It collects the main
// isolate's heap, the only one that outlives a run: a worker's isolate and a
// child process are started afresh in the run that uses them.
//
// Bun and Deno run this kit and its workload files too (their manifests
// extend Node's); where their APIs differ, ENGINE says which one runs it.
//
// gc = "off": V8 has no switch that turns its collector off (--expose-gc
// only lets a program start a collection), nor does Bun expose one for
// JavaScriptCore (Bun.gc only starts one), so the kit cannot do what the
// seed does: it runs with the collector on (and collects before every run,
// as always) and does not claim gc=off in its flags (the manifest's notes
// say so under each rate workload with `gc`).
//
// A request of kind "floor" loads no workload (protocol: "The kit's floor").
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const WORKLOADS = path.join(__dirname, "workloads");
// The manifest's mechanisms, which its command passes as {mechanisms}: Bun's
// and Deno's manifests (runtimes/bun, runtimes/deno) run this kit too.
const MECHANISMS = (process.argv[2] ?? "").split(",");
// The runtime that runs the kit: Node (V8), Bun (JavaScriptCore) or Deno (V8).
const ENGINE = typeof globalThis.Bun === "object" ? "bun" : typeof globalThis.Deno === "object" ? "deno" : "node";
// JavaScriptCore's young-generation collection, Bun's only (collectGarbage).
const edenGC = ENGINE === "bun" ? require("bun:jsc").edenGC : null;

// COUNTING_COST, where counting weighs most: invoke's promise cell with
// mode=await (an async function called and awaited per operation), batch=100,
// one-second time boxes, 21 alternating rounds in one process with and
// without run.units.start() and finish() in the body: a median of 39.3 ns an
// operation without, 38.7 ns with: nothing measurable (V8 inlines the two
// calls; a promise costs far more). Elsewhere units are made once a run, or
// are workers and processes, which take milliseconds to start. Bun 1.4.5 and
// Deno 2.9.6, the same loop outside the kit (two rounds each, this 2-core
// machine shared at a load of 5 to 19): Bun 149.8 ns without, 174.9 with,
// then 110.0 and 104.5; Deno 152.8 and 160.4, then 83.0 and 81.8: no cost
// above the noise, which moved Node's own figures by as much.

/** A request the kit cannot serve: a clean refusal, not a failure. */
class Refusal extends Error {}

/** The shared counters' slots: started, alive, the most alive at once. */
const STARTED = 0;
const LIVE = 1;
const PEAK = 2;

/** A run's units: how many started, and the most alive at once. */
class Units {
  constructor() {
    this.started = 0;
    this.live = 0;
    this.peak = 0;
    this.shared = new Int32Array(new SharedArrayBuffer(3 * 4));
    this.stamped = [];
  }

  /** The first act of a unit's body on the main thread. */
  start() {
    this.started++;
    if (++this.live > this.peak) this.peak = this.live;
  }

  /** The last act of a unit's body on the main thread. */
  finish() {
    this.live--;
  }

  /** Units that were stamped as they started and ended ([start, stop] in ns, BigInt). */
  spans(pairs) {
    this.stamped.push(...pairs);
  }

  /** [units, peak_live], after the run (the clocks stopped). */
  count() {
    const shared = this.shared;
    const live = this.live + Atomics.load(shared, LIVE);
    if (live !== 0) throw new Error(`${live} units still alive at the end of the run`);
    const sources = [this.started > 0, shared[STARTED] > 0, this.stamped.length > 0];
    if (sources.filter(Boolean).length > 1) throw new Error("a run counts its units one way");
    if (shared[STARTED] > 0) return [shared[STARTED], shared[PEAK]];
    if (this.stamped.length > 0) return [this.stamped.length, peakOfSpans(this.stamped)];
    return [this.started, this.peak];
  }
}

/** Start and finish on shared counters, from any thread (a worker's body). */
const sharedUnits = (shared) => ({
  start() {
    Atomics.add(shared, STARTED, 1);
    const live = Atomics.add(shared, LIVE, 1) + 1;
    // Every change of LIVE is one step in its order, so the values add
    // returns are every value it took: their maximum is the peak.
    for (let peak = Atomics.load(shared, PEAK); live > peak; peak = Atomics.load(shared, PEAK)) {
      if (Atomics.compareExchange(shared, PEAK, peak, live) === peak) break;
    }
  },
  finish() {
    Atomics.sub(shared, LIVE, 1);
  },
});

/** The most spans open at once; a span that ends when another starts is counted as ended first. */
function peakOfSpans(pairs) {
  const events = pairs.flatMap(([start, stop]) => [
    [start, 1],
    [stop, -1],
  ]);
  events.sort(([t1, d1], [t2, d2]) => (t1 < t2 ? -1 : t1 > t2 ? 1 : d1 - d2));
  let live = 0;
  let peak = 0;
  for (const [, step] of events) peak = Math.max(peak, (live += step));
  return peak;
}

/** The monotonic clock in ns, for the kit's timings. */
const now = () => process.hrtime.bigint();

/** A child's stamps in ns, comparable across the processes of a trial: Node's
 *  hrtime (CLOCK_MONOTONIC). Bun's and Deno's count from their process's
 *  start, so that there a stamp is the wall clock at that start
 *  (performance.timeOrigin) plus performance.now(), to a fraction of a µs. */
const stamp = ENGINE === "node" ? now : () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));

/** CPU time (ns) of this process and of the children it reaped: /proc/self/stat's
 *  cutime and cstime (Node has no getrusage(RUSAGE_CHILDREN)), in clock ticks. */
function cpu() {
  const own = process.cpuUsage();
  const fields = fs.readFileSync("/proc/self/stat", "latin1").split(") ")[1].split(" ");
  const tick = 1e9 / 100; // USER_HZ, 100 on Linux
  return {
    user: own.user * 1000 + Number(fields[13]) * tick,
    sys: own.system * 1000 + Number(fields[14]) * tick,
  };
}

function clocks() {
  const c = cpu();
  return { wall: now(), ...c };
}

function since(start) {
  const wall = now();
  const c = cpu();
  return {
    wall_ns: Number(wall - start.wall),
    user_ns: Math.round(c.user - start.user),
    sys_ns: Math.round(c.sys - start.sys),
  };
}

/** One run of a mechanism: its parameters, and what it reports. */
class Run {
  constructor(params, scratch, trial, prepared) {
    this.params = params;
    this.scratch = scratch;
    this.prepared = prepared; // the workload's prepare(params), made once a trial
    this.units = new Units();
    this.trial = trial; // the trial's accounting of its child processes
    this.reported = null;
    this.span = null;
    this.rateStart = null;
    this.batches = 0;
  }

  /** Reports the counts the spec declares under [evidence]. */
  evidence(counts) {
    this.reported = { ...this.reported, ...counts };
  }

  /** Runs the run's work, the only part the kit then times; returns its value. */
  async timed(work) {
    if (this.span) throw new Error("the mechanism handed the kit its work twice");
    const start = clocks();
    const value = await work();
    this.span = since(start);
    return value;
  }

  /** Says where the run's server listens: tcp:127.0.0.1:PORT or unix:PATH, a line ahead of the answer. */
  listening(server) {
    const address = server.address(); // a path for a Unix socket, {address, port} for TCP
    const where = typeof address === "string" ? `unix:${address}` : `tcp:${address.address}:${address.port}`;
    fs.writeSync(1, JSON.stringify({ listening: where }) + "\n");
  }

  /** Starts the clocks and runs batch until the time box has passed (at least once). */
  async rate(batch) {
    if (this.rateStart) throw new Error("rate called twice in one run");
    this.rateStart = clocks();
    const deadline = this.rateStart.wall + BigInt(Math.round(this.params.seconds * 1e9));
    do {
      const pending = batch();
      if (pending !== undefined) await pending;
      this.batches++;
    } while (process.hrtime.bigint() < deadline);
  }
}

function loadWorkload(id) {
  const file = path.join(WORKLOADS, `${id}.js`);
  if (!/^[a-z0-9-]+$/.test(id) || !fs.existsSync(file)) throw new Refusal(`workload ${JSON.stringify(id)} is not implemented`);
  return require(file);
}

function implemented() {
  const names = MECHANISMS;
  const list = {};
  for (const file of fs.readdirSync(WORKLOADS).sort()) {
    if (!file.endsWith(".js")) continue;
    const workload = require(path.join(WORKLOADS, file));
    const mechanisms = names.filter((name) => typeof workload[name] === "function").sort();
    if (mechanisms.length) list[path.basename(file, ".js")] = mechanisms;
  }
  return list;
}

/** The arguments Deno was started with between `deno run` and the kit's path
 *  (its process.execArgv is empty: they are read from /proc/self/cmdline). */
function denoArguments() {
  const argv = fs.readFileSync("/proc/self/cmdline", "utf8").split("\0");
  return argv.slice(
    argv.indexOf("run") + 1,
    argv.findIndex((arg) => path.resolve(arg) === __filename),
  );
}

function runtime() {
  if (ENGINE === "bun") {
    const flags = [...process.execArgv, "eden gc before each run"];
    return {
      name: "bun",
      version: `${Bun.version} (JavaScriptCore, WebKit ${process.versions.webkit.slice(0, 12)})`,
      flags,
      parallelism: parallelism(),
    };
  }
  if (ENGINE === "deno") {
    const flags = [...denoArguments(), "minor gc before each run"];
    return { name: "deno", version: `${Deno.version.deno} (V8 ${Deno.version.v8})`, flags, parallelism: parallelism() };
  }
  // libuv's threadpool (files, DNS) is not sized by cores: 4 threads unless
  // UV_THREADPOOL_SIZE says otherwise, whatever the trial's cpus.
  const flags = [`UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE || 4}`, ...process.execArgv, "minor gc before each run"];
  return { name: "node", version: `${process.versions.node} (V8 ${process.versions.v8})`, flags, parallelism: parallelism() };
}

/** The CPUs the runtime sized itself to, read back from it (docs/protocol.md,
 *  "CPUs"): a trial confined to k CPUs runs under an affinity mask of k,
 *  which os.availableParallelism reads on Node (libuv's
 *  uv_available_parallelism), Bun and Deno alike (1 under taskset -c 0 on
 *  2 cores, where os.cpus() still lists 2), so the kit sets nothing. It is
 *  the count the worker modes make their units by where workers = 0
 *  (lib/workermodes.js); Deno sizes V8's platform workers to the mask too. */
function parallelism() {
  return os.availableParallelism();
}

/** The trial's child processes: the memory of the largest of them, as many as were
 *  ever alive at once, in the run where that sum is largest (protocol: "Memory of
 *  mechanisms that fork"); lib/processes.js reports to it. */
class Trial {
  constructor() {
    this.accountMemory = false;
    this.largestTree = null;
    this.beginRun();
  }

  beginRun() {
    this.alive = 0;
    this.mostAlive = 0;
    this.privateKb = [];
  }

  forked() {
    this.mostAlive = Math.max(this.mostAlive, ++this.alive);
  }

  reaped(privateKb) {
    this.alive--;
    this.privateKb.push(privateKb);
  }

  endRun() {
    if (this.accountMemory && this.privateKb.length) {
      const largest = this.privateKb.sort((a, b) => b - a).slice(0, this.mostAlive);
      this.largestTree = Math.max(
        this.largestTree ?? 0,
        largest.reduce((a, b) => a + b, 0),
      );
    }
    this.beginRun();
  }
}

/** This process's peak resident memory (kB). */
function ownPeakKb() {
  return Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]);
}

/** A collection of the main isolate's young generation, so that no run pays
 *  for an earlier run's short-lived garbage. Not a full one: V8's full
 *  collection deoptimizes the code that embedded the earlier run's objects
 *  (--trace-deopt: "weak objects", "code dependencies", every run), which
 *  made promise rows 2.8 to 4.9 times slower and never warm
 *  (docs/extending.md, "Settled policies"). On Bun, JavaScriptCore's young
 *  generation (bun:jsc's edenGC), as on V8: its full one (Bun.gc(true)),
 *  which the kit took before, cost 7.7 ms a run beside 0.04 ms with a heap
 *  of 100,000 live objects, and a calibrated trial of 1,264 runs of 30 us
 *  (future's none) spent 10 of its 10.3 s in it. */
function collectGarbage() {
  if (ENGINE === "bun") return edenGC();
  if (typeof globalThis.gc !== "function")
    throw new Error("the kit needs V8's --expose-gc (the manifest's command) to collect before every run");
  globalThis.gc({ type: "minor" });
}

async function measure(mechanism, run, rate) {
  collectGarbage();
  const start = clocks();
  const result = await mechanism(run);
  if (rate) {
    if (!run.rateStart) throw new Error("the mechanism did not run the timed loop");
    return { ...since(run.rateStart), result, ops: run.batches * run.params.batch };
  }
  return { ...(run.span ?? since(start)), result };
}

/** The warm-up runs a trial takes: the request's `warmup`, or, where it asks
 *  for a steady warm-up, groups of runs until the last `window` groups lie
 *  within `spread` of each other or `most` runs have run, each run judged by
 *  its `measure`: wall time, or CPU time (user + system). The rule is the
 *  harness's (src/concbench/warmup.py), which checks that the runs stopped
 *  where it says; its arithmetic is copied exactly. */
class Warmup {
  constructor(request) {
    this.least = request.warmup;
    const steady = request.steady ?? { group: 1, most: request.warmup, window: 0, spread: 0, measure: "wall" };
    const { group, most, window, spread, measure } = steady;
    Object.assign(this, { group, most, window, spread, cpu: measure === "cpu" });
    this.costs = [];
    this.groupCost = 0;
    this.taken = 0;
  }

  /** Whether another group of warm-up runs is due. */
  due() {
    return this.taken < this.most && (this.taken < this.least || !this.steady());
  }

  /** Whether any warm-up ran. */
  get warmed() {
    return this.taken > 0;
  }

  ran(run) {
    this.groupCost += (this.cpu ? run.user_ns + run.sys_ns : run.wall_ns) / (run.ops || 1);
    if (++this.taken % this.group === 0) {
      this.costs.push(this.groupCost);
      this.groupCost = 0;
    }
  }

  steady() {
    if (this.window === 0 || this.costs.length < this.window) return false;
    const last = this.costs.slice(-this.window);
    return Math.max(...last) <= (1 + this.spread) * Math.min(...last);
  }
}

async function serve(request) {
  const kind = request.kind ?? "fixed";
  if (kind === "floor") return { ok: true, runtime: runtime(), runs: [] };
  if (kind === "list") return { ok: true, runtime: runtime(), runs: [], implements: implemented() };
  if (kind !== "fixed" && kind !== "rate") throw new Refusal(`unknown kind ${JSON.stringify(kind)}`);
  const workload = loadWorkload(request.workload);
  const name = request.mechanism;
  if (!MECHANISMS.includes(name) || typeof workload[name] !== "function") {
    throw new Refusal(`mechanism ${JSON.stringify(name)} is not implemented for workload ${JSON.stringify(request.workload)}`);
  }
  const prepared = typeof workload.prepare === "function" ? workload.prepare(request.params) : undefined;
  const trial = new Trial();
  const runs = [];
  const warmup = new Warmup(request);
  const oneRun = async (warming) => {
    trial.accountMemory = warming || !warmup.warmed; // a child's memory is read in the runs whose times are discarded
    const run = new Run(request.params, request.scratch, trial, prepared);
    const measured = await measure(workload[name], run, kind === "rate");
    const [units, peakLive] = run.units.count();
    trial.endRun();
    const entry = { warmup: warming, ...measured, units, peak_live: peakLive };
    if (run.reported) entry.evidence = run.reported;
    runs.push(entry);
    return entry;
  };
  while (warmup.due()) {
    for (let i = 0; i < warmup.group; i++) warmup.ran(await oneRun(true));
  }
  for (let i = 0; i < request.runs; i++) await oneRun(false);
  const response = { ok: true, runtime: runtime(), runs };
  if (trial.largestTree !== null) response.tree_rss_kb = ownPeakKb() + trial.largestTree;
  return response;
}

/** A run whose promises nothing will settle lets the event loop empty: Node
 *  then exits 0 without running the rest of main, unless this says so. */
function answerAtExit() {
  process.on("exit", () => {
    if (answered) return;
    fs.writeSync(
      1,
      JSON.stringify({ ok: false, error: "the event loop emptied with the run unfinished: a promise nothing settles" }) + "\n",
    );
    process.exitCode = 1;
  });
}

let answered = false;

async function main() {
  answerAtExit();
  let code = 0;
  let response;
  try {
    response = await serve(JSON.parse(fs.readFileSync(0, "utf8")));
  } catch (error) {
    if (!(error instanceof Refusal)) {
      console.error(error);
      code = 1;
    }
    response = { ok: false, error: String(error.message ?? error).replace(/\s+/g, " ") };
  }
  fs.writeSync(1, JSON.stringify(response) + "\n");
  answered = true;
  process.exit(code);
}

module.exports = { ENGINE, Refusal, sharedUnits, stamp };

if (require.main === module) main();
