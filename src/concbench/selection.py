"""The names a user selects by (workloads, runtimes, mechanisms, parameters,
options), for a run and for the history of stored runs alike."""

from .errors import UserError


def check_names(kind: str, names, known: set[str]) -> None:
    for name in names:
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise UserError(f"unknown {kind} {name!r} (known: {choices})")


def wanted_mechanism(wanted: tuple[str, ...], runtime: str, mechanism: str) -> bool:
    return not wanted or mechanism in wanted or f"{runtime}/{mechanism}" in wanted
