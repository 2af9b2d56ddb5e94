// Package kit is the concbench Go kit: what a workload file sees (this file),
// the registry (registry.go) and the trial protocol (protocol.go).
//
// A mechanism is a func(*Run) error. It reads its parameters (Int, Choice),
// does the whole job of one run (starts its units, awaits every one of them,
// closes what it opened), reports the result (Result) and the workload's
// evidence (Evidence, Unobservable), and returns nil. The kit times the whole
// call, unless the mechanism hands it its work with Timed: then only that
// call is timed, and what the mechanism does before (make the files the work
// writes into, compile a pattern) and after (read the files' sizes, remove
// them) is untimed, the protocol's "untimed steps around a run".
//
// Units and peak_live (docs/protocol.md, "Evidence"): every unit calls
// Units().Start() as the first act of its body and Units().Finish() as its
// last. Start is three atomic operations on counters the run's units share
// (started, live, and the peak by compare-and-swap), touched only as a unit
// starts and ends, never inside its work; a goroutine's start and exit cost
// more than that. A mechanism that starts no unit (none) calls neither.
// What it costs where it weighs most, a goroutine started and awaited per
// operation (kit/units_test.go, BenchmarkCounting, -count 6, 2 cores): a
// median of 365 ns an operation without the counting, 385 ns with it, +20 ns
// (+5.6%); the two sides ran one after the other, not alternated.
//
// Rate workloads (docs/protocol.md, "Rate workloads"): the mechanism sets
// up, then hands the kit one batch of `batch` operations with Rate, which
// starts the clocks and calls it until `seconds` have passed, reading the
// clock once a batch; the mechanism then, still timed, awaits what is
// outstanding and returns, and the kit stops the clocks.
//
// Servers (workloads/echo.toml): the mechanism opens its listener before the
// clocks and says where with Listening, then serves in its Timed work.
//
// Evidence: each unit counts its events (a TryLock that failed, a push that
// found the channel full) in a variable of its own; the mechanism sums them
// after it has awaited its units and reports the sum.
package kit

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"
)

// A Mechanism does one run of a workload.
type Mechanism func(*Run) error

// Run is one run of a mechanism: its parameters, and what it reports.
type Run struct {
	params   map[string]any
	scratch  string
	units    Units
	result   map[string]int64
	evidence map[string]*int64
	timed    *span   // set by Timed, else by the kit when the call returns
	rate     *moment // set by Rate: where its clocks started
	batches  int64   // run by Rate
}

// Units counts a run's units as they start and finish.
type Units struct {
	started, live, peak atomic.Int64
}

// Start is a unit's first act.
func (u *Units) Start() {
	u.started.Add(1)
	live := u.live.Add(1)
	// Every change of live is one step in its modification order, so the
	// values Add returns are every value it took: their maximum is the peak.
	for peak := u.peak.Load(); live > peak && !u.peak.CompareAndSwap(peak, live); peak = u.peak.Load() {
	}
}

// Finish is a unit's last act.
func (u *Units) Finish() { u.live.Add(-1) }

// Units is the run's unit counter.
func (r *Run) Units() *Units { return &r.units }

// Scratch is an empty directory the trial may use.
func (r *Run) Scratch() string { return r.scratch }

// Int is the integer parameter name; a missing or malformed one fails the
// trial (the harness validates parameters, so this is a kit bug).
func (r *Run) Int(name string) int64 {
	number, ok := r.params[name].(json.Number)
	value, err := number.Int64()
	if !ok || err != nil {
		panic(fmt.Errorf("parameter %q is not an integer: %v", name, r.params[name]))
	}
	return value
}

// Result reports one of the values the spec's [expect] names.
func (r *Run) Result(name string, value int64) { r.result[name] = value }

// Evidence reports one of the counts the spec declares under [evidence].
func (r *Run) Evidence(name string, count int64) { r.evidence[name] = &count }

// Unobservable reports an evidence count the mechanism cannot see, as null
// (say why where it is called).
func (r *Run) Unobservable(name string) { r.evidence[name] = nil }

// Float is the number parameter name (a rate workload's seconds).
func (r *Run) Float(name string) float64 {
	number, ok := r.params[name].(json.Number)
	value, err := number.Float64()
	if !ok || err != nil {
		panic(fmt.Errorf("parameter %q is not a number: %v", name, r.params[name]))
	}
	return value
}

// Choice is the string parameter name (a choice such as mode).
func (r *Run) Choice(name string) string {
	value, ok := r.params[name].(string)
	if !ok {
		panic(fmt.Errorf("parameter %q is not a string: %v", name, r.params[name]))
	}
	return value
}

// Listening says that the run's server listens on address ("tcp:HOST:PORT"
// or "unix:PATH"): a line on the protocol's stdout, before the answer, which
// the harness reads as it comes and hands to its load generator. An
// unbuffered write: the line leaves at once.
func (r *Run) Listening(address string) error {
	line, _ := json.Marshal(map[string]string{"listening": address})
	_, err := fmt.Fprintln(answers, string(line))
	return err
}

// Rate starts the clocks and runs batch, one batch of operations, until the
// time box has passed (at least once); the clocks stop when the mechanism
// returns.
func (r *Run) Rate(batch func()) {
	if r.rate != nil {
		panic("Rate called twice in one run")
	}
	start := now()
	r.rate = &start
	deadline := start.wall.Add(time.Duration(r.Float("seconds") * float64(time.Second)))
	for {
		batch()
		r.batches++
		if !time.Now().Before(deadline) {
			return
		}
	}
}

// Timed runs the run's work, the only part the kit then times.
func (r *Run) Timed(work func()) {
	start := now()
	work()
	r.timed = end(start)
}

// slowdown is the test hook --slowdown=PCT (docs/protocol.md, "A known
// slowdown"): the percentage by which every run is stretched; 0 without it.
var slowdown float64

// A moment, by the monotonic clock and the process's CPU time.
type moment struct {
	wall      time.Time
	user, sys int64 // ns
}

// A span is a timed region; unstretched is how long it had lasted before the
// test hook's spin.
type span struct {
	start, stop moment
	unstretched time.Duration
}

// now is a region's start: the wall clock is read innermost.
func now() moment {
	user, sys := cpuTimes()
	return moment{time.Now(), user, sys}
}

// end ends the timed region begun at start, every run's (a rate workload's
// whole loop, the wait for what is outstanding included). With the test
// hook, it busy-spins on the monotonic clock until the region has lasted
// (1 + slowdown/100) times what it had when end was called, whatever ran in
// it: nothing of the run is left to overlap the spin, and the spin's last
// reading is the region's end, so that nothing follows it inside the region.
// A spin rather than a sleep, which would overshoot by the timer's slack.
func end(start moment) *span {
	wall := time.Now()
	unstretched := wall.Sub(start.wall)
	if slowdown > 0 {
		until := start.wall.Add(time.Duration(float64(unstretched) * (1 + slowdown/100)))
		for wall.Before(until) {
			wall = time.Now()
		}
	}
	user, sys := cpuTimes()
	return &span{start, moment{wall, user, sys}, unstretched}
}

func cpuTimes() (user, sys int64) {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return usage.Utime.Nano(), usage.Stime.Nano()
}
