"""An inline SVG heatmap: a grid of cells coloured by a score on a
diverging scale, its rows linked, its columns in named groups, and the
colours' legend. Like charts.py it knows nothing of benchmarks."""

from collections.abc import Sequence
from dataclasses import dataclass

from ..display import html_safe
from . import svg

# ColorBrewer's RdBu, from worse (red) through neutral to better (blue).
DIVERGING = ("#b2182b", "#ef8a62", "#fddbc7", "#f7f7f7", "#d1e5f0", "#67a9cf", "#2166ac")
SATURATION = 2.0  # the score (log10 of a factor) at which a heat cell takes its full colour: 100x
NO_FIGURE = "#d9dce2"


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
    cell_width = max([CELL_WIDTH] + [svg.advance(c.text, 11) + 10 for c in cells.values()])
    left = max(svg.advance(text) for text, _ in rows) + 14
    header = max(svg.advance(c) for c in columns) * 0.71 + 16  # labels at 45 degrees
    grid_width = left + len(columns) * cell_width
    width = max(grid_width + header, left + 9 * 52 + 8)  # room for the last label and for the legend
    grid_bottom = header + len(rows) * CELL_HEIGHT
    bottom = grid_bottom + (GROUP_BAND if groups else 0)
    body = [
        f'<text transform="translate({svg.px(left + (j + 0.5) * cell_width - 4)} {svg.px(header - 6)}) rotate(-45)" '
        f'fill="{svg.MUTED}">{html_safe(column)}</text>'
        for j, column in enumerate(columns)
    ]
    body += [
        f'<a href="{html_safe(link)}">' + svg.text(left - 8, header + (i + 0.5) * CELL_HEIGHT, text, "end") + "</a>"
        for i, (text, link) in enumerate(rows)
    ]
    for (i, j), cell in cells.items():
        body.append(_heat_cell(left + j * cell_width, header + i * CELL_HEIGHT, cell_width, cell))
    body += _groups(groups, left, cell_width, header, grid_bottom)
    if not legend:
        return svg.chart(width, bottom + 8, "heatmap", label, body)
    body.append(_heat_legend(left, bottom + 14))
    return svg.chart(width, bottom + 62, "heatmap", label, body)


GROUP_BAND = 22  # under a heatmap's grid: the names of its groups of columns


def _groups(groups: Sequence[tuple[str, int]], left: float, cell_width: float, top: float, bottom: float) -> list[str]:
    """Each group's name under its columns, and a rule before every group but the first."""
    drawn, x = [], left
    for i, (name, count) in enumerate(groups):
        if i:
            drawn.append(svg.line(x, top, x, bottom + GROUP_BAND - 4, svg.INK, 1.5, ' class="group-rule"'))
        drawn.append(svg.text(x + count * cell_width / 2, bottom + GROUP_BAND / 2, name, "middle", 11, svg.MUTED))
        x += count * cell_width
    return drawn


def _heat_cell(x: float, y: float, width: float, cell: Heat) -> str:
    fill = NO_FIGURE if cell.score is None else heat_colour(cell.score)
    strong = cell.score is not None and abs(cell.score) > 0.6 * SATURATION
    outline = f' stroke="{svg.INK}" stroke-width="2"' if cell.reference else ' stroke="#ffffff"'
    return (
        f"<g><title>{html_safe(cell.tip)}</title>"
        f'<rect class="heat-cell" x="{svg.px(x)}" y="{svg.px(y)}" width="{svg.px(width)}" height="{CELL_HEIGHT}" '
        f'fill="{fill}"{outline}/>'
        + svg.text(x + width / 2, y + CELL_HEIGHT / 2, cell.text, "middle", 11, "#ffffff" if strong else svg.INK)
        + "</g>"
    )


def _heat_legend(x: float, y: float) -> str:
    """Swatches from 100 times worse to 100 times better, named at every factor of ten."""
    names = {-2.0: "100x worse", -1.0: "10x worse", 0.0: "same", 1.0: "10x better", 2.0: "100x better"}
    swatches = []
    for k in range(9):
        score = (k - 4) / 2
        swatches.append(
            f'<rect x="{svg.px(x + k * 52)}" y="{svg.px(y)}" width="52" height="12" fill="{heat_colour(score)}"/>'
        )
        if score in names:
            swatches.append(svg.text(x + k * 52 + 26, y + 24, names[score], "middle", 10, svg.MUTED))
    return '<g class="legend">' + "".join(swatches) + "</g>"
