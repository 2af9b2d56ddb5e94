// Waiting inside concurrent units (workloads/invoke-waiting.toml): as
// invoke, but each body yields to its scheduler once before it increments
// the counter: through the event loop (promise), or a hop through V8's
// microtask queue (microtask; lib/invocation.js).
"use strict";

const { invokePromises, loopYield, microtaskHop } = require("../lib/invocation.js");

const promise = (run) => invokePromises(run, true, loopYield);

const microtask = (run) => invokePromises(run, true, microtaskHop);

module.exports = { promise, microtask };
