// Worker modes: CPU-bound work (workloads/map-cpu.toml): case i computes
// (i + 1) x tarai(9, 4, 0), which makes 55,229 calls and returns 9.
"use strict";

const { workerModes, total } = require("../lib/workermodes.js");

function tarai(x, y, z) {
  return x <= y ? y : tarai(tarai(x - 1, y, z), tarai(y - 1, z, x), tarai(z - 1, x, y));
}

/** The unit that evaluates a case multiplies, so a wrong case gets a wrong sum. */
const evaluate = (i) => (i + 1) * tarai(9, 4, 0);

module.exports = {
  evaluate,
  ...workerModes({
    file: __filename,
    inputs: (run) => Array.from({ length: run.params.cases }, (_, i) => i),
    evaluate: "evaluate",
    *evaluation(inputs) {
      return { sum: total(yield inputs) };
    },
  }),
};
