"""What every inline SVG chart is drawn with: its fonts and inks, the
document, a line of text, a line, and coordinates written short.

Fonts and colours are attributes of the SVG itself, so a chart looks the
same wherever it is pasted. Text is set in a monospace font, whose
characters all have the same advance, so the layout can reserve room for a
label without measuring it."""

from ..display import html_safe

FONT_SIZE = 12
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
INK, MUTED, GRID = "#1d2330", "#5b6475", "#e3e6ec"


def advance(text: str, size: float = FONT_SIZE) -> float:
    """The advance of a monospace text: 0.6 em a character."""
    return len(text) * 0.6 * size


def px(value: float) -> str:
    """A coordinate, short: a tenth of a pixel is finer than any screen."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def chart(width: float, height: float, kind: str, label: str, body: list[str]) -> str:
    return (
        f'<svg class="chart {kind}" viewBox="0 0 {px(width)} {px(height)}" width="{px(width)}" '
        f'height="{px(height)}" role="img" aria-label="{html_safe(label)}" font-family="{FONT}" '
        f'font-size="{FONT_SIZE}" fill="{INK}">' + "".join(body) + "</svg>"
    )


def text(
    x: float, y: float, content: str, anchor: str = "start", size: float = FONT_SIZE, fill: str = INK, extra: str = ""
) -> str:
    """A line of text whose middle, not its baseline, sits at y."""
    size_attr = f' font-size="{px(size)}"' if size != FONT_SIZE else ""
    return (
        f'<text x="{px(x)}" y="{px(y)}" dy="0.35em" text-anchor="{anchor}" fill="{fill}"'
        f"{size_attr}{extra}>{html_safe(content)}</text>"
    )


def line(x1, y1, x2, y2, stroke: str, width: float = 1, extra: str = "") -> str:
    return (
        f'<line x1="{px(x1)}" y1="{px(y1)}" x2="{px(x2)}" y2="{px(y2)}" stroke="{stroke}" '
        f'stroke-width="{px(width)}"{extra}/>'
    )
