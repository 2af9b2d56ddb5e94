"""The smoke profile of every cell of the runtimes that start a JIT's engine
(smoke.ENGINES): the JVMs', Node's, Bun's and Deno's. The other half is
test_smoke.py's; smoke.py says why there are two."""

from smoke import *  # noqa: F403 (the smoke run's tests, on this file's half)

SMOKE_HALF = "engines"
