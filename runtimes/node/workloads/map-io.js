// Worker modes: I/O-bound work (workloads/map-io.toml): each case reads the
// whole of a file of `file_size` bytes, written before the timing, and
// appends as many characters as its LCG draw in [0, 10] says; the result is
// the sum of the lengths.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { draws } = require("../lib/lcg.js");
const { workerModes, total } = require("../lib/workermodes.js");

/** The file every case reads: one per trial, in its scratch directory (the
 *  units learn it from the environment, which workers and children inherit). */
const FILE = "CONCBENCH_NODE_MAP_IO";

const appended = (content, n) => Buffer.concat([content, Buffer.alloc(n, "x")]).length;

/** A blocking read (none, and the units on threads or processes of their own). */
const evaluate = (n) => appended(fs.readFileSync(process.env[FILE]), n);

/** A read on libuv's threadpool, awaited (the promise row). */
const evaluateAsync = async (n) => appended(await fs.promises.readFile(process.env[FILE]), n);

function inputs(run) {
  process.env[FILE] = path.join(run.scratch, "map-io");
  fs.writeFileSync(process.env[FILE], Buffer.alloc(run.params.file_size, "x"));
  return draws(run.params.cases, 0, 10);
}

module.exports = {
  evaluate,
  evaluateAsync,
  ...workerModes({
    file: __filename,
    inputs,
    evaluate: "evaluate",
    evaluateAsync: "evaluateAsync",
    *evaluation(inputs) {
      return { length: total(yield inputs) };
    },
  }),
};
