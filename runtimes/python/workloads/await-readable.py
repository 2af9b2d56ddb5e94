"""Mere waiting: await readable (workloads/await-readable.toml): lib/readiness.py
on pipes holding a byte, awaited at their read ends."""

from lib import readiness

MECHANISMS = readiness.mechanisms(readable=True)
