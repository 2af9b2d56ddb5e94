"""Figures as plain text that the run's own lines print as well as the
reports (report/figures.py has the rest): a share, and a length of time."""

import math


def percent(share: float) -> str:
    """37%, 4.2%, 0.045%, 0.000050%: two significant digits below 10%, never
    in scientific notation."""
    value = share * 100
    if value >= 10 or value == 0:
        return f"{value:.0f}%"
    return f"{value:.{1 - math.floor(math.log10(value))}f}%"


def duration_text(seconds: float) -> str:
    """A length of a run: '2 min 55 s', or '41.3 s' under a minute."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"
