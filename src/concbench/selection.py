"""The names a user selects by (workloads, runtimes, mechanisms, parameters,
options), for a run and for the stored runs alike."""

from dataclasses import dataclass

from .errors import UserError
from .records import CellKey


def check_names(kind: str, names, known: set[str]) -> None:
    for name in names:
        if name not in known:
            choices = ", ".join(sorted(known)) or "none"
            raise UserError(f"unknown {kind} {name!r} (known: {choices})")


def wanted_mechanism(wanted: tuple[str, ...], runtime: str, mechanism: str) -> bool:
    return not wanted or mechanism in wanted or f"{runtime}/{mechanism}" in wanted


@dataclass(frozen=True)
class CellFilter:
    """Which stored cells to show or follow: the -w, -r, -m and -p of `show`,
    `report` and `history`. Empty: every one."""

    workloads: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()  # 'thread' or 'ruby/thread'
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()  # values as the tables' titles print them

    def check(self, stored: set[CellKey]) -> None:
        """A one-line error for a name that no stored cell has."""
        check_names("workload", self.workloads, {k.workload for k in stored})
        check_names("runtime", self.runtimes, {k.runtime for k in stored})
        check_names(
            "mechanism", self.mechanisms, {k.mechanism for k in stored} | {f"{k.runtime}/{k.mechanism}" for k in stored}
        )
        check_names("parameter", [name for name, _ in self.params], {name for k in stored for name, _ in k.params})

    def __call__(self, key: CellKey) -> bool:
        params = {name: str(value) for name, value in key.params}
        return self.keeps_row(key.workload, key.runtime, key.mechanism) and all(
            params.get(name) in values for name, values in self.params
        )

    def keeps_row(self, workload: str, runtime: str, mechanism: str) -> bool:
        """Whether a row of a workload is wanted, whatever its parameters (an
        n/a line or a note has no parameters of its own)."""
        return (
            (not self.workloads or workload in self.workloads)
            and (not self.runtimes or runtime in self.runtimes)
            and wanted_mechanism(self.mechanisms, runtime, mechanism)
        )
