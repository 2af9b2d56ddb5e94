"""Mere waiting: await writable (workloads/await-writable.toml): lib/readiness.py
on empty pipes, awaited at their write ends."""

from lib import readiness

MECHANISMS = readiness.mechanisms(readable=False)
