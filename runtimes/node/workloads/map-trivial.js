// Worker modes: trivial work (workloads/map-trivial.toml): each case takes
// an integer from the LCG in [-1,000,000, 1,000,000] and computes x + 1;
// the result is the sum.
"use strict";

const { draws } = require("../lib/lcg.js");
const { workerModes, total } = require("../lib/workermodes.js");

const successor = (x) => x + 1;

module.exports = {
  successor,
  ...workerModes({
    file: __filename,
    inputs: (run) => draws(run.params.cases, -1_000_000, 1_000_000),
    evaluate: "successor",
    *evaluation(inputs) {
      return { sum: total(yield inputs) };
    },
  }),
};
