// Ring (workloads/ring.toml): `nodes` units form a ring, each knowing the
// next; the first starts a token whose count is 0, every pass adds one, and
// when the token reaches the first unit for the `laps`-th time it stops it
// and reports its count; then every unit is stopped and awaited.
"use strict";

const { Queue } = require("../lib/async.js");

/** Each node an async function with an inbox (an unbounded queue, lib/async.js);
 *  null stops a node, which passes it on. */
async function promise(run) {
  const { nodes, laps } = run.params;
  const units = run.units;
  const inboxes = Array.from({ length: nodes }, () => new Queue(0));
  const next = (i) => inboxes[(i + 1) % nodes];
  const node = async (i) => {
    units.start();
    for (let token = await inboxes[i].pop(); token !== null; token = await inboxes[i].pop()) next(i).push(token + 1);
    next(i).push(null);
    units.finish();
  };
  const first = async () => {
    units.start();
    next(0).push(1); // the token starts at 0, and this is its first pass
    let token;
    for (let lap = 1; lap <= laps; lap++) {
      token = await inboxes[0].pop();
      if (lap < laps) next(0).push(token + 1);
    }
    next(0).push(null); // goes round, stopping every node
    await inboxes[0].pop();
    units.finish();
    return token;
  };
  const others = Array.from({ length: nodes - 1 }, (_, i) => node(i + 1));
  const hops = await first();
  await Promise.all(others);
  return { hops };
}

module.exports = { promise };
