"""Mere invocation (workloads/invoke.toml): lib/invocation.py, with bodies
that do not yield, and the baseline, the plain call."""

from lib import invocation


def calls(run) -> dict:
    """The seed's proc.call: the operation is the body itself, the same in
    every mode, so that the kit's loop is a bare loop over it."""
    count = 0

    def body():
        nonlocal count
        count += 1

    run.rate(body)
    return {"count": count}


MECHANISMS = {"none": calls, **invocation.mechanisms(waits=False)}
