// map-trivial, map-cpu, map-io and map-shrink: Pbt's worker modes (seed
// 001). One operation is one evaluation, which applies the workload's
// evaluate function to lists of inputs through the mechanism's map: in
// place (none), or striped over `workers` units made for each list (0: one
// per CPU the trial may use, os.availableParallelism), no more than it has
// inputs, as Parallel.map, which Pbt calls, does; unit w of n evaluates the
// cases w, w + n, ...
//
// An evaluation is a generator that yields each list it needs evaluated and
// gets back its results (map-shrink asks several times), so that one
// evaluation serves the plain calls and the units alike: none drives it in
// place, the others await each map.
"use strict";

const os = require("node:os");
const { startWorker } = require("./workers.js");
const { forkChild } = require("./processes.js");

/** Evaluates one stripe in a worker or a child: the workload's evaluate, by name. */
function evaluateStripe({ file, evaluate, inputs }) {
  return inputs.map(require(file)[evaluate]);
}

/** Unit w's cases of n. */
function stripe(inputs, w, n) {
  const cases = [];
  for (let i = w; i < inputs.length; i += n) cases.push(inputs[i]);
  return cases;
}

/** A map over n units, each started by start(cases), which resolves with their results. */
function striped(run, start) {
  const workers = run.params.workers || os.availableParallelism();
  return async (inputs) => {
    const n = Math.min(workers, inputs.length);
    const stripes = await Promise.all(Array.from({ length: n }, (_, w) => start(stripe(inputs, w, n))));
    const results = new Array(inputs.length);
    stripes.forEach((values, w) => values.forEach((value, j) => (results[w + j * n] = value)));
    return results;
  };
}

/** The mechanisms of a map workload. workload: its file (for the units that
 *  load it), inputs(run) (made before the timing), evaluate (the name of its
 *  export that evaluates one case; evaluateAsync's for the promise row, where
 *  the case awaits) and evaluation (the generator, which returns an
 *  evaluation's results: the run's are their sums). */
function workerModes({ file, inputs, evaluate, evaluateAsync = evaluate, evaluation }) {
  const loop = async (run, map) => {
    const cases = inputs(run);
    const totals = {};
    await run.rate(async () => {
      for (let b = 0; b < run.params.batch; b++) {
        const steps = evaluation(cases);
        let step = steps.next();
        while (!step.done) step = steps.next(await map(step.value));
        add(totals, step.value);
      }
    });
    return totals;
  };
  const none = async (run) => {
    const cases = inputs(run);
    const apply = require(file)[evaluate];
    const totals = {};
    await run.rate(() => {
      for (let b = 0; b < run.params.batch; b++) {
        const steps = evaluation(cases);
        let step = steps.next();
        while (!step.done) step = steps.next(step.value.map(apply));
        add(totals, step.value);
      }
    });
    return totals;
  };
  const promise = (run) => {
    const apply = require(file)[evaluateAsync];
    const units = run.units;
    return loop(
      run,
      striped(run, async (cases) => {
        units.start();
        const results = [];
        for (const input of cases) results.push(await apply(input));
        units.finish();
        return results;
      }),
    );
  };
  const data = (cases) => ({ file, evaluate, inputs: cases });
  const worker = (run) =>
    loop(
      run,
      striped(run, (cases) => startWorker(run, __filename, "evaluateStripe", data(cases))),
    );
  const processes = (run) =>
    loop(
      run,
      striped(run, (cases) => forkChild(run, __filename, "evaluateStripe", data(cases))),
    );
  return { none, promise, worker, process: processes };
}

/** Adds an evaluation's results to the run's. */
function add(totals, results) {
  for (const [name, value] of Object.entries(results)) totals[name] = (totals[name] ?? 0) + value;
}

/** The sum of a list of numbers. */
const total = (values) => values.reduce((a, b) => a + b, 0);

module.exports = { workerModes, evaluateStripe, total };
