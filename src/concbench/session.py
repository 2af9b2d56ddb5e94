"""A run as this machine takes it, for `concbench run` and `concbench worker`
alike: the cells chosen, what a killed harness left cleaned up, the runtimes
built, the plan made and the machine fingerprinted; then the trials taken,
SIGTERM stopping them as Ctrl-C does, and the trials waiting in the journal
sent before the run says it is done. The commands only parse their options
and call it; tests call it directly."""

import contextlib
import dataclasses
import signal
from collections.abc import Callable

from rich.console import Console

from . import cpus, environment, machine_lock, orphans, paths, runtimes, worker, workloads
from .display import printable
from .errors import UserError
from .plan import Choice, Plan, choose, make_plan
from .progress import ProgressDisplay, budget_text, extent_text, plan_progress_text, schedule_lines, to_go_text
from .records import Machine, RunInfo
from .runner import execute
from .schedule import Schedule
from .selection import Selection
from .status import Status
from .store import Store, open_store

INTERRUPTED = 130  # the exit code of a run stopped by Ctrl-C or SIGTERM


@dataclasses.dataclass(frozen=True)
class Screen:
    """Where a session speaks: its lines and live progress on console, a
    run's tables by tables(store, run_id), which returns the exit code they
    call for (1 where a trial failed)."""

    console: Console
    tables: Callable[[Store, int], int]

    def say(self, line: str) -> None:
        self.console.print(printable(line))


@dataclasses.dataclass(frozen=True)
class Request:
    """What a run was asked: the selection's options as given (None or empty
    where not), or a run to resume; --repeat-check, --plan-only, --machine."""

    asked: dict = dataclasses.field(default_factory=dict)
    profile: str = "quick"
    resume: str | None = None
    repeat_check: bool = False
    plan_only: bool = False
    machine: str | None = None
    suite: paths.Suite = paths.Suite()  # the folders of workloads and runtimes given


def run(request: Request, db: str, screen: Screen) -> int:
    """A run made, resumed, repeated or only planned in the database db, as
    the request asks; the exit code."""
    _refuse_conflicts(request)
    store = open_store(db)
    store.said = screen.say
    if request.plan_only and not store.shared:
        raise UserError(
            f"--plan-only stores a plan for workers on many machines: give a PostgreSQL database "
            f"(--db postgresql://...), not the SQLite file {store.name}"
        )
    store.hold_for_run()
    run_id, selection = (
        resumed(store, request.resume, request.asked)
        if request.resume is not None
        else (None, Selection.asked(profile=request.profile, **_given(request.asked)))
    )
    if not request.plan_only:  # a plan's workers may have more CPUs than this machine
        cpus.check(selection.cpus)
    choice, plan = prepare(selection, request.suite, screen)
    if not plan.cells:
        for line in dict.fromkeys(f"{s.workload} {s.row}: {s.kind}: {s.reason}" for s in plan.skipped):
            screen.say(line)
        raise UserError("nothing to run: every selected cell is n/a or unavailable")
    here = environment.fingerprint(choice.runtimes, selection.caps, request.machine, request.suite)
    if request.plan_only:
        return _store_plan(plan, selection, store, here, screen)
    if run_id is None:
        run_id = store.begin_run(selection.to_json(), here)
    else:
        store.set_state(run_id, "running")
    code = take_plan(plan, selection, store, run_id, Machine.of(here), screen, show=not request.repeat_check)
    if not request.repeat_check or code == INTERRUPTED:
        return code
    again = selection.model_copy(update={"repeat_of": run_id})
    second = store.begin_run(
        again.to_json(), environment.fingerprint(choice.runtimes, selection.caps, request.machine, request.suite)
    )
    return max(code, take_plan(plan, again, store, second, Machine.of(here), screen, show=True))


def _given(asked: dict) -> dict:
    return {name: value for name, value in asked.items() if value is not None}


def _refuse_conflicts(request: Request) -> None:
    """What cannot go together, refused before a database is opened or made."""
    if request.resume is not None and request.repeat_check:
        raise UserError("--resume continues one stored run; --repeat-check starts two")
    if not request.plan_only:
        return
    refused = {
        "--resume": request.resume,
        "--repeat-check": request.repeat_check,
        "--budget": request.asked.get("budget"),
        "--target": request.asked.get("target"),
        "--max-trials": request.asked.get("max_trials"),
    }
    for option, given in refused.items():
        if given:
            raise UserError(
                f"--plan-only stores a fixed plan that workers drain; {option} is one machine's run: "
                "give --trials instead, or run without --plan-only"
            )


def prepare(selection: Selection, suite: paths.Suite, screen: Screen) -> tuple[Choice, Plan]:
    """The selection's cells of the suite (bad input fails before any build),
    the machine cleaned of leftovers, the runtimes built, and the plan."""
    choice = choose(selection, workloads.load_all(suite.workload_dirs()), runtimes.load_all(suite.runtime_dirs()))
    clean_leftovers(screen)
    build(choice.runtimes)
    return choice, make_plan(choice)


def build(found: list[runtimes.Runtime]) -> None:
    """The runtimes built, each in the machine's turn (Runtime.build)."""
    for rt in found:
        rt.build()


def clean_leftovers(screen: Screen) -> None:
    """What a harness killed mid-trial left would run beside this run's trials."""
    found = orphans.clean()
    if found:
        screen.say(f"cleaned up after a concbench that died mid-trial: {', '.join(found)}")


def take_plan(
    plan: Plan,
    selection: Selection,
    store: Store,
    run_id: int,
    machine: Machine,
    screen: Screen,
    show: bool,
    again: str = "",
) -> int:
    """A stored run's trials, those not yet taken; its tables if show. again
    says how to go on after an interruption, if not with --resume."""
    store.add_skipped(run_id, plan.skipped)  # a resumed run's, as the manifests say now
    store.add_notes(run_id, plan.notes)
    done = store.trials(run_id)
    schedule = Schedule(
        plan,
        done,
        spent_ns=sum(t.wall_ns or 0 for t in done),
        earlier=store.earlier_trial_lengths(run_id),
        clock=machine_lock.own_clock_ns,
    )
    screen.say(
        f"run {run_id}: {extent_text(plan, selection.profile)}, {to_go_text(schedule)} trials to go; "
        f"{len(plan.skipped)} cells n/a or unavailable; stored in {store.name}"
    )
    if plan.settings.budget:
        screen.say(budget_text(schedule))
    if not machine_lock.trials_take_turns():
        screen.say(
            f"{machine_lock.TAKE_TURNS}=builds: this run's trials do not take turns with those of other "
            "concbench runs here, and may measure them"
        )

    def take() -> None:
        with ProgressDisplay(screen.console, schedule) as display:
            execute(plan, schedule, store, run_id, display, machine)

    if not _taken(take, store, screen):
        store.set_state(run_id, "interrupted")
        done = len(store.finished_trials(run_id))
        if done and show:
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C skips the tables
                screen.tables(store, run_id)
        screen.say(
            f"interrupted: {done} finished trials of run {run_id} are stored; "
            + (again or f"continue with: concbench run --resume {run_id}")
        )
        return INTERRUPTED
    store.set_state(run_id, "complete")
    code = screen.tables(store, run_id) if show else int(any(t.status != Status.OK for t in store.trials(run_id)))
    for line in schedule_lines(schedule):
        screen.say(line)
    return code


def _taken(take: Callable[[], None], store: Store, screen: Screen) -> bool:
    """Whether take ran to its end, SIGTERM stopping it as Ctrl-C does; the
    journal is sent after either, and waited for only after the end."""
    signal.signal(signal.SIGTERM, interrupt)
    try:
        take()
        _send_journal(store, screen)
    except KeyboardInterrupt:
        _send_journal(store, screen, wait=False)
        return False
    return True


def interrupt(signum, frame):
    raise KeyboardInterrupt


def _send_journal(store: Store, screen: Screen, wait: bool = True) -> None:
    """The trials that wait for a server that went away, sent before the run
    says it is done; if it stays away, where they wait."""
    if store.journal.pending() and wait:
        screen.say(f"waiting for the database {store.name} to take {store.journal.pending()} trials")
    left = store.send_journal(wait)
    if left:
        raise UserError(
            f"{left} finished trials wait in {store.journal.folder}: the database {store.name} is out of reach; "
            "the next concbench command on it sends them"
        )


def _store_plan(plan: Plan, selection: Selection, store: Store, planner: dict, screen: Screen) -> int:
    """The run's trials stored for workers, in the order one machine would
    take them: every cell's first trial, then every cell's second."""
    run_id = store.begin_run(selection.to_json(), planner, state="planned")
    store.add_skipped(run_id, plan.skipped)
    store.add_notes(run_id, plan.notes)
    trials = [(cell.key.id, index) for index in range(plan.settings.trials) for cell in plan.cells]
    store.add_plan(run_id, trials)
    screen.say(
        f"run {run_id}: planned {len(plan.cells)} cells x {plan.settings.trials} trials = {len(trials)} "
        f"trials in {store.name}; {len(plan.skipped)} cells n/a or unavailable"
    )
    screen.say(
        f"on each machine, $CONCBENCH_DB naming this database: concbench worker {run_id}; "
        f"progress: concbench show {run_id}"
    )
    return 0


def resumed(store: Store, which: str, asked: dict) -> tuple[int, Selection]:
    """The run to continue (a number, or 'latest') and its own selection."""
    if any(value not in (None, (), {}) for value in asked.values()):
        raise UserError("--resume continues a run with its own selection: give no other options")
    info = _resumable(store, which)
    selection = Selection.from_json(info.request)
    if selection.ab:
        raise UserError(f"run {info.id} is an A/B run, which cannot be resumed: its trials are stored; start it again")
    return info.id, selection


def _resumable(store: Store, which: str) -> RunInfo:
    if which != "latest":  # a number: options.run_number checked it
        info = store.run(int(which))
    else:
        unfinished = [r for r in store.runs() if r.state != "complete"]
        if not unfinished:
            raise UserError("no interrupted run to resume")
        info = unfinished[-1]
    if info.state == "complete":
        raise UserError(f"run {info.id} is complete: nothing to resume")
    return info


def work(run_id: int | None, db: str, machine: str | None, grace: float, suite: paths.Suite, screen: Screen) -> int:
    """The trials of a stored plan (the latest with trials waiting if run_id
    is None) taken one at a time from the shared database db until none is
    left; the exit code."""
    store = open_store(db, create=False)
    store.said = screen.say
    if not store.shared:
        raise UserError(
            f"concbench worker takes trials from a PostgreSQL database (--db postgresql://...), not {store.name}"
        )
    info = _plan_to_drain(store, run_id)
    selection = Selection.from_json(info.request)
    choice, plan = prepare(selection, suite, screen)
    unknown = store.planned_cells(info.id) - {cell.key.id for cell in plan.cells}
    if unknown:
        raise UserError(
            f"this machine cannot run {len(unknown)} cells of run {info.id}'s plan (one: {min(unknown)}): "
            "a worker needs the plan's concbench, workloads and runtimes"
        )
    here = environment.fingerprint(choice.runtimes, selection.caps, machine, suite)
    taker = worker.Worker(store, info.id, plan, Machine.of(here), grace, screen.say)
    store.add_worker(info.id, taker.name, here)
    screen.say(f"worker {taker.name}: taking the trials of run {info.id} from {store.name}")
    if not _taken(taker.drain, store, screen):
        store.release(info.id, taker.name)
        screen.say(f"interrupted: worker {taker.name} stored {len(taker.stored())} trials")
        return INTERRUPTED
    stored = taker.stored()
    progress = store.progress(info.id)
    if progress.done == progress.planned:
        store.set_state(info.id, "complete")
    screen.say(f"worker {taker.name}: stored {len(stored)} trials; {plan_progress_text(progress)}")
    return int(any(record.status != Status.OK for record in stored))


def _plan_to_drain(store: Store, run_id: int | None) -> RunInfo:
    if run_id is not None:
        info = store.run(run_id)
        if store.progress(info.id) is None:
            raise UserError(
                f"run {info.id} has no stored plan to take trials from (concbench run --plan-only makes one)"
            )
        return info
    for info in reversed(store.runs()):
        progress = store.progress(info.id)
        if progress is not None and progress.done < progress.planned:
            return info
    raise UserError(f"no stored plan with trials waiting in {store.name} (concbench run --plan-only makes one)")
