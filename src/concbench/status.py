"""What became of a trial: the status its verdict (verify.py) gives it, as
the store keeps it and every report counts it."""

from enum import StrEnum


class Status(StrEnum):
    OK = "ok"
    INVALID = "invalid"  # answered, but a run's result is not the expected one
    TIMEOUT = "timeout"  # killed at its time limit
    CRASH = "crash"  # died by a signal
    EXIT = "exit"  # exited non-zero without a clean refusal
    GARBAGE = "garbage"  # exited 0 without a parsable answer
    ERROR = "error"  # refused cleanly ({"ok": false}) or could not be started
    LIMIT = "limit"  # stopped at its memory or process cap
    STRAY = "stray"  # verified, but left processes running when it exited
