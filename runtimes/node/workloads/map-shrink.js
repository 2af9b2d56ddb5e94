// Worker modes: a failing property, shrunk (workloads/map-shrink.toml): the
// property x <= 100 over LCG integers in [-1,000,000, 1,000,000]. The units
// evaluate every case; the first failing one in case order (index f, value
// v) is shrunk by bisection between 0, which passes, and v, which fails:
// each round the units evaluate up to 8 evenly spaced candidates strictly
// above the lower bound; the smallest failing one becomes the upper bound
// and the largest passing one below it the lower, until they are adjacent.
"use strict";

const { draws } = require("../lib/lcg.js");
const { workerModes } = require("../lib/workermodes.js");

const holds = (x) => x <= 100;

/** The round's candidates: lo + (hi - lo) x k / 9 for k = 1..8, without repeats, above lo. */
function candidates(passing, failing) {
  const values = [];
  for (let k = 1; k <= 8; k++) {
    const candidate = passing + Math.floor(((failing - passing) * k) / 9);
    if (candidate !== passing && !values.includes(candidate)) values.push(candidate);
  }
  return values;
}

/** One evaluation: the first failing case, then its bisection, each list evaluated by the units. */
function* evaluation(inputs) {
  const f = (yield inputs).indexOf(false);
  if (f < 0) throw new Error("none of the cases fails the property");
  let passing = 0;
  let failing = inputs[f];
  let evaluated = 0;
  while (failing - passing > 1) {
    const round = candidates(passing, failing);
    const held = yield round;
    evaluated += held.length;
    let failed = held.indexOf(false);
    if (failed < 0) failed = round.length; // every candidate passes
    if (failed > 0) passing = round[failed - 1];
    if (failed < round.length) failing = round[failed];
  }
  return { first: f, minimal: failing, candidates: evaluated };
}

module.exports = {
  holds,
  ...workerModes({
    file: __filename,
    inputs: (run) => draws(run.params.cases, -1_000_000, 1_000_000),
    evaluate: "holds",
    evaluation,
  }),
};
