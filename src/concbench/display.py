"""Text from outside the harness (a trial, a manifest, a spec, a path) made
safe to show on a terminal: control characters would move the cursor, clear
the screen or retitle the window, so they are shown escaped instead."""

import re

# C0 controls but tab, DEL and C1 controls: ESC (\x1b) and CSI (\x9b) open terminal sequences.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    """The text with each control character written as its escape, e.g. \\x1b."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))
