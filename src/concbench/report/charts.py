"""Inline SVG charts: horizontal bars with error bars, and lines over a
numeric axis (the heatmap is heatmap.py; what both draw with, svg.py).

They know nothing of benchmarks: labels, numbers, the texts to print and the
tooltips go in, one SVG string comes out."""

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..display import html_safe
from . import svg

BAR_FILL, WHISKER = "#4e79a7", "#1d2330"
# Okabe and Ito's colours, told apart with every kind of colour blindness
# (their yellow left out: it vanishes on white). Markers tell lines apart in print.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c6d31")
NAME_INDENT = 14  # a line's name: its marker, then its text in ink (a pale colour is hard to read)
MARKERS = ("circle", "square", "triangle", "diamond")


# Scales and ticks


@dataclass(frozen=True)
class Scale:
    """Maps the domain [low, high] onto the pixels [start, end], linearly or by logarithm."""

    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        f = math.log10 if self.log else float
        value = min(max(value, self.low), self.high)
        return self.start + (f(value) - f(self.low)) / (f(self.high) - f(self.low)) * (self.end - self.start)


def wide(values: Sequence[float]) -> bool:
    """Whether values span a factor of 10 or more: a log scale shows them better."""
    return min(values) > 0 and max(values) >= 10 * min(values)


def linear_ticks(high: float, count: int = 5) -> list[float]:
    """0, then round steps (1, 2 or 5 times a power of ten) up to the first at or past high."""
    if high <= 0:
        return [0.0, 1.0]
    rough = high / count
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    return [i * step for i in range(math.ceil(high / step - 1e-9) + 1)]


def log_ticks(low: float, high: float) -> list[float]:
    """Round values from the last at or below low to the first at or past high:
    1, 2 and 5 times powers of ten over two decades or less, powers of ten alone beyond."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1, 2, 5) if last - first <= 2 else (1,)
    candidates = [m * 10.0**p for p in range(first, last + 1) for m in steps]
    start = max(c for c in candidates if c <= low * (1 + 1e-9))
    end = min(c for c in candidates if c >= high * (1 - 1e-9))
    return [c for c in candidates if start <= c <= end]


# Bars


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    low: float  # the interval, drawn as a whisker
    high: float
    text: str  # the value as printed at the end of the bar
    tip: str  # the tooltip: whatever else a reader may want to know


ROW, BAR_HEIGHT, TOP, AXIS = 24, 14, 6, 26


def bar_chart(
    bars: Sequence[Bar],
    tick_text: Callable[[float], str],
    label: str,
    group_starts: Collection[int] = (),
    width: int = 500,
) -> str:
    """One horizontal bar per item, in the order given, its interval as a
    whisker and its value printed beyond; a rule above each bar that starts
    a group (a runtime's rows). Bars start at zero: a cut axis makes small
    differences look large."""
    label_room = max(svg.advance(b.label) for b in bars) + 14
    text_room = max(svg.advance(b.text, 11) for b in bars) + 12
    ticks = linear_ticks(max(max(b.value, b.high) for b in bars))
    x = Scale(0, ticks[-1], label_room, width - text_room)
    bottom = TOP + len(bars) * ROW
    body = [
        svg.line(x(t), TOP, x(t), bottom, svg.GRID) + svg.text(x(t), bottom + 12, tick_text(t), "middle", 11, svg.MUTED)
        for t in ticks
    ]
    body.append(svg.line(x.start, TOP, x.start, bottom, svg.MUTED))
    body += [
        svg.line(0, TOP + i * ROW, width, TOP + i * ROW, svg.MUTED, 1, ' class="group-rule"') for i in group_starts
    ]
    for i, bar in enumerate(bars):
        middle = TOP + (i + 0.5) * ROW
        low, high = x(bar.low), x(bar.high)
        body.append(
            f"<g><title>{html_safe(bar.tip)}</title>"
            + svg.text(label_room - 8, middle, bar.label, "end")
            + f'<rect class="bar" x="{svg.px(x.start)}" y="{svg.px(middle - BAR_HEIGHT / 2)}" '
            f'width="{svg.px(max(x(bar.value) - x.start, 0.5))}" height="{BAR_HEIGHT}" fill="{BAR_FILL}"/>'
            + svg.line(low, middle, high, middle, WHISKER, 1.2)
            + svg.line(low, middle - 4, low, middle + 4, WHISKER, 1.2)
            + svg.line(high, middle - 4, high, middle + 4, WHISKER, 1.2)
            + svg.text(max(high, x(bar.value)) + 6, middle, bar.text, size=11)
            + "</g>"
        )
    return svg.chart(width, bottom + AXIS, "bar-chart", label, body)


# Lines


@dataclass(frozen=True)
class Point:
    y: float
    low: float  # the interval, drawn as a whisker
    high: float
    tip: str


@dataclass(frozen=True)
class Line:
    label: str
    points: Sequence[Point | None]  # one per x value; None where the series has no figure
    # Its look, the same in every chart: a colour (a runtime's, so that its
    # mechanisms read as one family) and a marker (a mechanism's within it).
    colour: int = 0
    marker: int = 0
    # (x, y) pairs the line is drawn through instead of its points, which
    # then only mark figures on it: a curve finer than the x values.
    trace: Sequence[tuple[float, float]] = ()
    # A guide to read the others against (an ideal): dashed in a muted ink,
    # named without a marker, drawn through its trace.
    guide: bool = False


def line_chart(
    xs: Sequence[float],
    lines: Sequence[Line],
    x_text: Callable[[float], str],
    y_text: Callable[[float], str],
    x_title: str,
    y_title: str,
    label: str,
    log_x: bool = False,
    log_y: bool = False,
    width: int = 720,
    y_most: float | None = None,
) -> str:
    """One line per series over the x values, named at its right end (a
    legend would have the reader match colours). The x ticks are the x
    values themselves; y starts at zero unless it is logarithmic, and ends
    at y_most at the most, where a whisker that reaches beyond is cut."""
    points = [p for line in lines for p in line.points if p]
    traced = [figure for line in lines for _, figure in line.trace]
    lows, highs = [p.low for p in points] + traced, [p.high for p in points] + traced
    high = min(max(highs), y_most or math.inf)
    y_ticks = log_ticks(min(lows), high) if log_y else linear_ticks(high)
    y_room = max(svg.advance(y_text(t), 11) for t in y_ticks) + 14
    name_room = max(svg.advance(line.label) for line in lines) + 24 + NAME_INDENT
    height = max(260, 20 * len(lines) + 90)
    top, bottom = 26, height - 44
    x = Scale(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1, y_room + 14, width - name_room - 14, log_x)
    y = Scale(y_ticks[0], y_ticks[-1], bottom, top, log_y)
    body = [
        svg.line(y_room, y(t), width - name_room, y(t), svg.GRID)
        + svg.text(y_room - 6, y(t), y_text(t), "end", 11, svg.MUTED)
        for t in y_ticks
    ]
    body += [svg.text(x(v), bottom + 12, x_text(v), "middle", 11, svg.MUTED) for v in _spaced(xs, x, 36)]
    body += [
        svg.line(y_room, bottom, width - name_room, bottom, svg.MUTED),
        svg.text(y_room, 10, y_title, size=11, fill=svg.MUTED),
        svg.text((x.start + x.end) / 2, bottom + 30, x_title, "middle", 11, svg.MUTED),
    ]
    body += _named_lines(lines, xs, x, y, width - name_room)
    return svg.chart(width, height, "line-chart", label, body)


def _named_lines(lines: Sequence[Line], xs: Sequence[float], x: Scale, y: Scale, margin: float) -> list[str]:
    """Each line and its name. Lines that reach the last x are named in the
    margin, spread apart; a line that stops short is named where it stops."""
    ends = [_last(line, xs, x, y) for line in lines]
    reach = [i for i, (end_x, _) in enumerate(ends) if end_x == x.end]
    names = dict(zip(reach, _spread([ends[i][1] for i in reach], 15, y.end, y.start)))
    drawn = []
    for i, (line, (end_x, end_y)) in enumerate(zip(lines, ends)):
        colour = svg.MUTED if line.guide else PALETTE[line.colour % len(PALETTE)]
        drawn.append(_series(line, xs, x, y, colour))
        if i in names:
            drawn.append(
                svg.line(end_x + 6, end_y, margin + 4, names[i], colour, 0.6, ' stroke-dasharray="2 2"')
                + _name(line, margin + 8, names[i], colour)
            )
        else:
            drawn.append(_name(line, end_x + 8, end_y, colour))
    return drawn


def _series(line: Line, xs: Sequence[float], x: Scale, y: Scale, colour: str) -> str:
    """A line through the points, broken where one is missing (or through
    its trace), with a marker and a whisker at each point."""
    runs, run = [], []
    for value, figure in line.trace or [(v, p.y if p else None) for v, p in zip(xs, line.points)]:
        if figure is not None:
            run.append(f"{svg.px(x(value))},{svg.px(y(figure))}")
        elif run:
            runs, run = runs + [run], []
    stroke = ' stroke-width="1.5" stroke-dasharray="6 4"' if line.guide else ' stroke-width="2"'
    paths = [
        f'<polyline class="series" points="{" ".join(r)}" fill="none" stroke="{colour}"{stroke}/>'
        for r in runs + [run]
        if len(r) > 1
    ]
    marks = [
        f'<g class="point"><title>{html_safe(p.tip)}</title>'
        + svg.line(x(v), y(p.low), x(v), y(p.high), colour, 1.2)
        + _marker(line.marker, x(v), y(p.y), colour)
        + "</g>"
        for v, p in zip(xs, line.points)
        if p
    ]
    return f'<g class="line">{"".join(paths + marks)}</g>'


def _name(line: Line, x: float, y: float, colour: str) -> str:
    marker = "" if line.guide else _marker(line.marker, x + 4, y, colour)
    return marker + svg.text(x + NAME_INDENT, y, line.label, fill=colour if line.guide else svg.INK)


def _marker(marker: int, cx: float, cy: float, colour: str, r: float = 4) -> str:
    """Marker `marker`: the four shapes filled, then the four hollow, then again."""
    shape = MARKERS[marker % len(MARKERS)]
    paint = (
        f'fill="{colour}"'
        if marker // len(MARKERS) % 2 == 0
        else f'fill="#ffffff" stroke="{colour}" stroke-width="1.5"'
    )
    if shape == "circle":
        return f'<circle cx="{svg.px(cx)}" cy="{svg.px(cy)}" r="{svg.px(r)}" {paint}/>'
    corners = {
        "square": [(-r, -r), (r, -r), (r, r), (-r, r)],
        "triangle": [(0, -1.2 * r), (1.1 * r, 0.9 * r), (-1.1 * r, 0.9 * r)],
        "diamond": [(0, -1.3 * r), (1.3 * r, 0), (0, 1.3 * r), (-1.3 * r, 0)],
    }[shape]
    return f'<polygon points="{" ".join(f"{svg.px(cx + dx)},{svg.px(cy + dy)}" for dx, dy in corners)}" {paint}/>'


def _last(line: Line, xs: Sequence[float], x: Scale, y: Scale) -> tuple[float, float]:
    """Where a line ends: its last point with a figure, or its trace's end without one."""
    value, figure = ([(v, p.y) for v, p in zip(xs, line.points) if p] or list(line.trace))[-1]
    return x(value), y(figure)


def _spaced(values: Sequence[float], scale: Scale, gap: float) -> list[float]:
    """The values whose labels do not crowd the one before (the first and the last win)."""
    shown = [values[0]]
    for v in values[1:]:
        if scale(v) - scale(shown[-1]) >= gap:
            shown.append(v)
        elif v == values[-1]:
            shown[-1] = v
    return shown


def _spread(wanted: list[float], gap: float, low: float, high: float) -> list[float]:
    """Positions as near the wanted ones as they can be while at least gap
    apart and within [low, high]: names of lines that end close together."""
    order = sorted(range(len(wanted)), key=wanted.__getitem__)
    placed = list(wanted)
    previous = low - gap
    for i in order:
        placed[i] = previous = max(placed[i], previous + gap)
    following = high + gap
    for i in reversed(order):
        placed[i] = following = min(placed[i], following - gap)
    return placed
