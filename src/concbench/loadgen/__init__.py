"""concbench's load generator for served workloads (loadgen.c): built on
first use with the machine's C compiler, into build/ of the project."""

from functools import cache
from pathlib import Path

from .. import cbuild

SOURCE = Path(__file__).with_name("loadgen.c")


@cache
def path() -> str:
    return cbuild.build(SOURCE, "concbench-loadgen", "the load generator")
