// Waiting inside concurrent units (workloads/invoke-waiting.toml): as
// invoke, but each body yields to its scheduler once (`await null`, to V8's
// microtask queue) before it increments the counter.
"use strict";

const { invokePromises } = require("../lib/invocation.js");

const promise = (run) => invokePromises(run, true);

module.exports = { promise };
