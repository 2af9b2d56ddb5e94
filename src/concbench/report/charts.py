"""Inline SVG charts: horizontal bars with error bars, lines over a numeric
axis, and a heatmap of scores.

They know nothing of benchmarks: labels, numbers, the texts to print and the
tooltips go in, one SVG string comes out. Fonts and colours are attributes of
the SVG itself, so a chart looks the same wherever it is pasted. Text is set
in a monospace font, whose characters all have the same advance, so the
layout can reserve room for a label without measuring it."""

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from html import escape

FONT_SIZE = 12
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
INK, MUTED, GRID = "#1d2330", "#5b6475", "#e3e6ec"
BAR_FILL, WHISKER = "#4e79a7", "#1d2330"
# Okabe and Ito's colours, told apart with every kind of colour blindness
# (their yellow left out: it vanishes on white). Markers tell lines apart in print.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c6d31")
NAME_INDENT = 14  # a line's name: its marker, then its text in ink (a pale colour is hard to read)
MARKERS = ("circle", "square", "triangle", "diamond")
# ColorBrewer's RdBu, from worse (red) through neutral to better (blue).
DIVERGING = ("#b2182b", "#ef8a62", "#fddbc7", "#f7f7f7", "#d1e5f0", "#67a9cf", "#2166ac")
SATURATION = 2.0  # the score (log10 of a factor) at which a heat cell takes its full colour: 100x
NO_FIGURE = "#d9dce2"


def _e(text) -> str:
    return escape(str(text), quote=True)


def _width(text: str, size: float = FONT_SIZE) -> float:
    """The advance of a monospace text: 0.6 em a character."""
    return len(text) * 0.6 * size


def _n(value: float) -> str:
    """A coordinate, short: a tenth of a pixel is finer than any screen."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, kind: str, label: str, body: list[str]) -> str:
    return (
        f'<svg class="chart {kind}" viewBox="0 0 {_n(width)} {_n(height)}" width="{_n(width)}" '
        f'height="{_n(height)}" role="img" aria-label="{_e(label)}" font-family="{FONT}" '
        f'font-size="{FONT_SIZE}" fill="{INK}">' + "".join(body) + "</svg>"
    )


def _text(
    x: float, y: float, text: str, anchor: str = "start", size: float = FONT_SIZE, fill: str = INK, extra: str = ""
) -> str:
    """A line of text whose middle, not its baseline, sits at y."""
    size_attr = f' font-size="{_n(size)}"' if size != FONT_SIZE else ""
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" dy="0.35em" text-anchor="{anchor}" fill="{fill}"'
        f"{size_attr}{extra}>{_e(text)}</text>"
    )


def _line(x1, y1, x2, y2, stroke: str, width: float = 1, extra: str = "") -> str:
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
        f'stroke-width="{_n(width)}"{extra}/>'
    )


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
    label_room = max(_width(b.label) for b in bars) + 14
    text_room = max(_width(b.text, 11) for b in bars) + 12
    ticks = linear_ticks(max(max(b.value, b.high) for b in bars))
    x = Scale(0, ticks[-1], label_room, width - text_room)
    bottom = TOP + len(bars) * ROW
    body = [
        _line(x(t), TOP, x(t), bottom, GRID) + _text(x(t), bottom + 12, tick_text(t), "middle", 11, MUTED)
        for t in ticks
    ]
    body.append(_line(x.start, TOP, x.start, bottom, MUTED))
    body += [_line(0, TOP + i * ROW, width, TOP + i * ROW, MUTED, 1, ' class="group-rule"') for i in group_starts]
    for i, bar in enumerate(bars):
        middle = TOP + (i + 0.5) * ROW
        low, high = x(bar.low), x(bar.high)
        body.append(
            f"<g><title>{_e(bar.tip)}</title>"
            + _text(label_room - 8, middle, bar.label, "end")
            + f'<rect class="bar" x="{_n(x.start)}" y="{_n(middle - BAR_HEIGHT / 2)}" '
            f'width="{_n(max(x(bar.value) - x.start, 0.5))}" height="{BAR_HEIGHT}" fill="{BAR_FILL}"/>'
            + _line(low, middle, high, middle, WHISKER, 1.2)
            + _line(low, middle - 4, low, middle + 4, WHISKER, 1.2)
            + _line(high, middle - 4, high, middle + 4, WHISKER, 1.2)
            + _text(max(high, x(bar.value)) + 6, middle, bar.text, size=11)
            + "</g>"
        )
    return _svg(width, bottom + AXIS, "bar-chart", label, body)


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
) -> str:
    """One line per series over the x values, named at its right end (a
    legend would have the reader match colours). The x ticks are the x
    values themselves; y starts at zero unless it is logarithmic."""
    points = [p for line in lines for p in line.points if p]
    lows, highs = [p.low for p in points], [p.high for p in points]
    y_ticks = log_ticks(min(lows), max(highs)) if log_y else linear_ticks(max(highs))
    y_room = max(_width(y_text(t), 11) for t in y_ticks) + 14
    name_room = max(_width(line.label) for line in lines) + 24 + NAME_INDENT
    height = max(260, 20 * len(lines) + 90)
    top, bottom = 26, height - 44
    x = Scale(min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1, y_room + 14, width - name_room - 14, log_x)
    y = Scale(y_ticks[0], y_ticks[-1], bottom, top, log_y)
    body = [
        _line(y_room, y(t), width - name_room, y(t), GRID) + _text(y_room - 6, y(t), y_text(t), "end", 11, MUTED)
        for t in y_ticks
    ]
    body += [_text(x(v), bottom + 12, x_text(v), "middle", 11, MUTED) for v in _spaced(xs, x, 36)]
    body += [
        _line(y_room, bottom, width - name_room, bottom, MUTED),
        _text(y_room, 10, y_title, size=11, fill=MUTED),
        _text((x.start + x.end) / 2, bottom + 30, x_title, "middle", 11, MUTED),
    ]
    body += _named_lines(lines, xs, x, y, width - name_room)
    return _svg(width, height, "line-chart", label, body)


def _named_lines(lines: Sequence[Line], xs: Sequence[float], x: Scale, y: Scale, margin: float) -> list[str]:
    """Each line and its name. Lines that reach the last x are named in the
    margin, spread apart; a line that stops short is named where it stops."""
    ends = [_last(line.points, xs, x, y) for line in lines]
    reach = [i for i, (end_x, _) in enumerate(ends) if end_x == x.end]
    names = dict(zip(reach, _spread([ends[i][1] for i in reach], 15, y.end, y.start)))
    drawn = []
    for i, (line, (end_x, end_y)) in enumerate(zip(lines, ends)):
        colour = PALETTE[line.colour % len(PALETTE)]
        drawn.append(_series(line, xs, x, y, colour))
        if i in names:
            drawn.append(
                _line(end_x + 6, end_y, margin + 4, names[i], colour, 0.6, ' stroke-dasharray="2 2"')
                + _name(line, margin + 8, names[i], colour)
            )
        else:
            drawn.append(_name(line, end_x + 8, end_y, colour))
    return drawn


def _series(line: Line, xs: Sequence[float], x: Scale, y: Scale, colour: str) -> str:
    """A line through the points, broken where one is missing, with a marker and a whisker at each."""
    runs, run = [], []
    for value, point in zip(xs, line.points):
        if point:
            run.append(f"{_n(x(value))},{_n(y(point.y))}")
        elif run:
            runs, run = runs + [run], []
    paths = [
        f'<polyline class="series" points="{" ".join(r)}" fill="none" stroke="{colour}" stroke-width="2"/>'
        for r in runs + [run]
        if len(r) > 1
    ]
    marks = [
        f'<g class="point"><title>{_e(p.tip)}</title>'
        + _line(x(v), y(p.low), x(v), y(p.high), colour, 1.2)
        + _marker(line.marker, x(v), y(p.y), colour)
        + "</g>"
        for v, p in zip(xs, line.points)
        if p
    ]
    return f'<g class="line">{"".join(paths + marks)}</g>'


def _name(line: Line, x: float, y: float, colour: str) -> str:
    return _marker(line.marker, x + 4, y, colour) + _text(x + NAME_INDENT, y, line.label)


def _marker(marker: int, cx: float, cy: float, colour: str, r: float = 4) -> str:
    """Marker `marker`: the four shapes filled, then the four hollow, then again."""
    shape = MARKERS[marker % len(MARKERS)]
    paint = (
        f'fill="{colour}"'
        if marker // len(MARKERS) % 2 == 0
        else f'fill="#ffffff" stroke="{colour}" stroke-width="1.5"'
    )
    if shape == "circle":
        return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" {paint}/>'
    corners = {
        "square": [(-r, -r), (r, -r), (r, r), (-r, r)],
        "triangle": [(0, -1.2 * r), (1.1 * r, 0.9 * r), (-1.1 * r, 0.9 * r)],
        "diamond": [(0, -1.3 * r), (1.3 * r, 0), (0, 1.3 * r), (-1.3 * r, 0)],
    }[shape]
    return f'<polygon points="{" ".join(f"{_n(cx + dx)},{_n(cy + dy)}" for dx, dy in corners)}" {paint}/>'


def _last(points: Sequence[Point | None], xs: Sequence[float], x: Scale, y: Scale) -> tuple[float, float]:
    """Where a line ends: its last point with a figure."""
    value, point = [(v, p) for v, p in zip(xs, points) if p][-1]
    return x(value), y(point.y)


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


# Heatmap


@dataclass(frozen=True)
class Heat:
    score: float | None  # how much better than the reference, as log10 of the factor
    # (+1: 10 times better, -1: 10 times worse); None: nothing to compare
    text: str
    tip: str
    reference: bool = False  # the reference itself: outlined


CELL_WIDTH, CELL_HEIGHT = 64, 24


def heat_colour(score: float) -> str:
    """The colour of a score on the diverging scale, saturated at SATURATION."""
    position = (max(-1.0, min(1.0, score / SATURATION)) + 1) / 2 * (len(DIVERGING) - 1)
    i = min(int(position), len(DIVERGING) - 2)
    return _mix(DIVERGING[i], DIVERGING[i + 1], position - i)


def _mix(a: str, b: str, share: float) -> str:
    channels = [round(int(a[k : k + 2], 16) * (1 - share) + int(b[k : k + 2], 16) * share) for k in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in channels)


def heatmap(
    rows: Sequence[tuple[str, str]],
    columns: Sequence[str],
    cells: dict[tuple[int, int], Heat],
    label: str,
    groups: Sequence[tuple[str, int]] = (),
    legend: bool = True,
) -> str:
    """A cell per (row, column) pair that has one, coloured by its score, its
    text inside; blank where there is none. rows: (label, link) pairs; a
    row's label links to its details. groups: (name, count) of consecutive
    columns, named under the grid and set apart by a rule (the runtimes).
    legend: the colour scale under it (one heatmap of several needs one)."""
    cell_width = max([CELL_WIDTH] + [_width(c.text, 11) + 10 for c in cells.values()])
    left = max(_width(text) for text, _ in rows) + 14
    header = max(_width(c) for c in columns) * 0.71 + 16  # labels at 45 degrees
    grid_width = left + len(columns) * cell_width
    width = max(grid_width + header, left + 9 * 52 + 8)  # room for the last label and for the legend
    grid_bottom = header + len(rows) * CELL_HEIGHT
    bottom = grid_bottom + (GROUP_BAND if groups else 0)
    body = [
        f'<text transform="translate({_n(left + (j + 0.5) * cell_width - 4)} {_n(header - 6)}) rotate(-45)" '
        f'fill="{MUTED}">{_e(column)}</text>'
        for j, column in enumerate(columns)
    ]
    body += [
        f'<a href="{_e(link)}">' + _text(left - 8, header + (i + 0.5) * CELL_HEIGHT, text, "end") + "</a>"
        for i, (text, link) in enumerate(rows)
    ]
    for (i, j), cell in cells.items():
        body.append(_heat_cell(left + j * cell_width, header + i * CELL_HEIGHT, cell_width, cell))
    body += _groups(groups, left, cell_width, header, grid_bottom)
    if not legend:
        return _svg(width, bottom + 8, "heatmap", label, body)
    body.append(_heat_legend(left, bottom + 14))
    return _svg(width, bottom + 62, "heatmap", label, body)


GROUP_BAND = 22  # under a heatmap's grid: the names of its groups of columns


def _groups(groups: Sequence[tuple[str, int]], left: float, cell_width: float, top: float, bottom: float) -> list[str]:
    """Each group's name under its columns, and a rule before every group but the first."""
    drawn, x = [], left
    for i, (name, count) in enumerate(groups):
        if i:
            drawn.append(_line(x, top, x, bottom + GROUP_BAND - 4, INK, 1.5, ' class="group-rule"'))
        drawn.append(_text(x + count * cell_width / 2, bottom + GROUP_BAND / 2, name, "middle", 11, MUTED))
        x += count * cell_width
    return drawn


def _heat_cell(x: float, y: float, width: float, cell: Heat) -> str:
    fill = NO_FIGURE if cell.score is None else heat_colour(cell.score)
    strong = cell.score is not None and abs(cell.score) > 0.6 * SATURATION
    outline = f' stroke="{INK}" stroke-width="2"' if cell.reference else ' stroke="#ffffff"'
    return (
        f"<g><title>{_e(cell.tip)}</title>"
        f'<rect class="heat-cell" x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{CELL_HEIGHT}" '
        f'fill="{fill}"{outline}/>'
        + _text(x + width / 2, y + CELL_HEIGHT / 2, cell.text, "middle", 11, "#ffffff" if strong else INK)
        + "</g>"
    )


def _heat_legend(x: float, y: float) -> str:
    """Swatches from 100 times worse to 100 times better, named at every factor of ten."""
    names = {-2.0: "100x worse", -1.0: "10x worse", 0.0: "same", 1.0: "10x better", 2.0: "100x better"}
    swatches = []
    for k in range(9):
        score = (k - 4) / 2
        swatches.append(f'<rect x="{_n(x + k * 52)}" y="{_n(y)}" width="52" height="12" fill="{heat_colour(score)}"/>')
        if score in names:
            swatches.append(_text(x + k * 52 + 26, y + 24, names[score], "middle", 10, MUTED))
    return '<g class="legend">' + "".join(swatches) + "</g>"
