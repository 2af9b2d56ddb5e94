"""Waiting inside concurrent units (workloads/invoke-waiting.toml):
lib/invocation.py, with bodies that yield to their scheduler once."""

from lib import invocation

MECHANISMS = invocation.mechanisms(waits=True)
