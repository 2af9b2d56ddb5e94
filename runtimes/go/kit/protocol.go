package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// BuildFlags are the flags the Makefile built the kit with (set by -ldflags).
var BuildFlags string

type request struct {
	Kind      string         `json:"kind"`
	Workload  string         `json:"workload"`
	Mechanism string         `json:"mechanism"`
	Params    map[string]any `json:"params"`
	Warmup    int            `json:"warmup"`
	Runs      int            `json:"runs"`
	Scratch   string         `json:"scratch"`
}

type answer struct {
	Ok         bool                `json:"ok"`
	Error      string              `json:"error,omitempty"`
	Runtime    map[string]any      `json:"runtime"`
	Runs       []map[string]any    `json:"runs"`
	Implements map[string][]string `json:"implements,omitempty"`
}

// refusal is a request the kit cannot serve: a clean answer, not a failure.
type refusal struct{ error }

// Refuse is a mechanism's refusal of parameters it cannot take.
func Refuse(format string, args ...any) error { return refusal{fmt.Errorf(format, args...)} }

// answers is the protocol's stdout: the answer, and before it the address a
// server listens on (Run.Listening). Main sends anything else printed to
// stderr.
var answers = os.Stdout

// Main serves one trial: the request on stdin, the answer as the last line
// of stdout (docs/protocol.md). Arguments, the runtime's options:
// -gomaxprocs=N and the test hook --slowdown=PCT.
func Main() {
	os.Stdout = os.Stderr // anything else printed goes to stderr
	code := 0
	reply, err := serve()
	var refused refusal
	switch {
	case errors.As(err, &refused):
		reply = answer{Error: refused.Error()}
	case err != nil:
		fmt.Fprintf(os.Stderr, "%+v\n", err)
		reply, code = answer{Error: strings.Join(strings.Fields(err.Error()), " ")}, 1
	}
	reply.Runtime = map[string]any{"name": "go", "version": runtime.Version(), "flags": flags(), "parallelism": parallelism()}
	if reply.Runs == nil {
		reply.Runs = []map[string]any{}
	}
	line, _ := json.Marshal(reply)
	fmt.Fprintln(answers, string(line))
	os.Exit(code)
}

// parallelism is the count of processors the scheduler runs goroutines on,
// read back at the end of the trial (docs/protocol.md, "CPUs"): GOMAXPROCS,
// which Go sets at start from the affinity mask (a trial confined to 1 CPU
// starts with 1), and which -gomaxprocs=N (the option p1) and the yield
// workload (GOMAXPROCS(1)) may set lower.
func parallelism() int { return runtime.GOMAXPROCS(0) }

// gcOff: a rate workload's gc parameter turned the collector off.
var gcOff bool

// flags are the settings in force that change what a run costs: measure's
// collection before every run among them (docs/extending.md, "Settled
// policies").
func flags() []string {
	out := []string{"GOMAXPROCS=" + strconv.Itoa(parallelism()), "gc before each run"}
	if gcOff {
		out = append(out, "gc=off")
	}
	if slowdown > 0 {
		out = append(out, "slowdown="+strconv.FormatFloat(slowdown, 'g', -1, 64))
	}
	return append(out, strings.Fields(BuildFlags)...)
}

// options applies the kit's arguments, the runtime's options.
func options(args []string) error {
	for _, arg := range args {
		name, value, _ := strings.Cut(arg, "=")
		switch name {
		case "-gomaxprocs":
			procs, err := strconv.Atoi(value)
			if err != nil || procs < 1 {
				return fmt.Errorf("%s: GOMAXPROCS must be a positive integer", arg)
			}
			runtime.GOMAXPROCS(procs)
		case "--slowdown":
			pct, err := strconv.ParseFloat(value, 64)
			if err != nil || !(pct > 0 && pct <= 1000) {
				return fmt.Errorf("%s: the percentage must be a number above 0 and at most 1000", arg)
			}
			slowdown = pct
		default:
			return fmt.Errorf("unknown argument %q (the kit takes -gomaxprocs=N and --slowdown=PCT)", arg)
		}
	}
	return nil
}

func serve() (reply answer, err error) {
	if err := options(os.Args[1:]); err != nil {
		return reply, err
	}
	var req request
	decoder := json.NewDecoder(os.Stdin)
	decoder.UseNumber()
	if err := decoder.Decode(&req); err != nil {
		return reply, fmt.Errorf("reading the request: %w", err)
	}
	switch req.Kind {
	case "floor":
		return answer{Ok: true}, nil
	case "list":
		return answer{Ok: true, Implements: implemented()}, nil
	case "fixed", "rate":
	default:
		return reply, refusal{fmt.Errorf("unknown kind %q", req.Kind)}
	}
	mechanism, ok := registry[req.Workload][req.Mechanism]
	if !ok {
		return reply, refusal{fmt.Errorf("mechanism %q is not implemented for workload %q", req.Mechanism, req.Workload)}
	}
	if req.Params["gc"] == "off" {
		debug.SetGCPercent(-1) // as the Concurrently seed does
		gcOff = true
	}
	for i := 0; i < req.Warmup+req.Runs; i++ {
		run, err := measure(mechanism, req)
		if err != nil {
			return reply, err
		}
		run["warmup"] = i < req.Warmup
		reply.Runs = append(reply.Runs, run)
	}
	reply.Ok = true
	return reply, nil
}

// measure does one run: the clocks around the mechanism, around its Timed
// work, or from the start of its Rate loop to its return. A collection is
// made first, outside the clocks, so that no run pays for another's garbage
// (even with gc=off: runtime.GC collects with the collector turned off).
func measure(mechanism Mechanism, req request) (map[string]any, error) {
	run := &Run{params: req.Params, scratch: req.Scratch, result: map[string]int64{}, evidence: map[string]*int64{}}
	runtime.GC()
	start := now()
	err := call(mechanism, run)
	if run.rate != nil {
		start = *run.rate
	}
	if run.timed == nil { // the whole call was the region, or the Rate loop to the return
		run.timed = end(start)
	}
	if err != nil {
		return nil, err
	}
	if req.Kind == "rate" && run.rate == nil {
		return nil, errors.New("a rate workload's mechanism must hand the kit its batches (Run.Rate)")
	}
	timed := run.timed
	if live := run.units.live.Load(); live != 0 {
		return nil, fmt.Errorf("%d units still alive after the run: a mechanism awaits every unit it starts", live)
	}
	answer := map[string]any{
		"wall_ns":   max(timed.stop.wall.Sub(timed.start.wall).Nanoseconds(), 1),
		"user_ns":   timed.stop.user - timed.start.user,
		"sys_ns":    timed.stop.sys - timed.start.sys,
		"units":     run.units.started.Load(),
		"peak_live": run.units.peak.Load(),
		"result":    run.result,
	}
	if len(run.evidence) > 0 {
		answer["evidence"] = run.evidence
	}
	if slowdown > 0 {
		answer["unstretched_ns"] = timed.unstretched.Nanoseconds()
	}
	if run.rate != nil {
		answer["ops"] = run.batches * run.Int("batch")
	}
	return answer, nil
}

// call runs the mechanism, turning a panic on its own goroutine (a missing
// parameter, say) into an error with its stack.
func call(mechanism Mechanism, run *Run) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v\n%s", p, debug.Stack())
		}
	}()
	return mechanism(run)
}
