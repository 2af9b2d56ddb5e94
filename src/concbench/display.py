"""Text from outside the harness (a trial, a manifest, a spec, a path) made
safe to show: on a terminal, control characters would move the cursor, clear
the screen or retitle the window; on a page, they would break its markup for
a strict reader. So they are shown escaped instead, as is markup on a page."""

import html
import re

# C0 controls but tab, DEL and C1 controls: ESC (\x1b) and CSI (\x9b) open terminal sequences.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# On a page a newline is kept too (a <pre> of stderr keeps its lines), and
# what XML cannot hold is escaped: lone surrogates, U+FFFE and U+FFFF.
_PAGE_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _escape(found: re.Match) -> str:
    return repr(found.group())[1:-1]


def printable(text: object) -> str:
    """The text with each control character written as its escape, e.g. \\x1b."""
    return _CONTROL.sub(_escape, str(text))


def html_safe(text: object) -> str:
    """The text as HTML (or XML) text or attribute value: its markup escaped,
    and each control character but tab and newline written as its escape."""
    return html.escape(_PAGE_CONTROL.sub(_escape, str(text)), quote=True)
