// The catalogue's portable inputs, identical in every language
// (src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31 from
// seed 42; draw k is the (k+1)-th value, mapped to [lo, hi] as
// lo + x mod (hi - lo + 1). Case i of a workload uses draw i. The product
// passes 2^53, so it is computed in BigInt (before the timing).
"use strict";

function draws(count, lo, hi) {
  const values = new Array(count);
  let x = 42n;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245n + 12345n) % 2n ** 31n;
    values[i] = lo + Number(x % BigInt(hi - lo + 1));
  }
  return values;
}

module.exports = { draws };
