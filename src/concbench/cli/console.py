"""The terminal every command prints on. Nothing printed is read as markup:
names, docs, versions and paths come from manifests, runtimes and users, and
a '[/]' in one would crash rich. Styles are given as style= or in a Text;
untrusted text goes through printable."""

from rich.console import Console

from ..display import printable

console = Console(markup=False, highlight=False, soft_wrap=True)


def say(line: str) -> None:
    console.print(printable(line))
