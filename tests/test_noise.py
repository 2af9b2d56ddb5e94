"""The machine's noise: what a run's probes say (steady, bursty, too few),
the meter that takes them between trials, and their round trip through a
SQLite store."""

import pytest

from concbench import machine_lock, noise
from concbench.records import Probe
from concbench.store import open_store

SECOND = 1_000_000_000
MS = 1_000_000


def probes(works_ms: list[float], every_s: float = 1.0) -> list[Probe]:
    """Probes every_s apart that took works_ms each."""
    return [Probe(round(i * every_s * SECOND), round(work * MS)) for i, work in enumerate(works_ms)]


def test_a_steady_machine_varies_little_and_is_never_slow():
    found = noise.speed(probes([4.0, 4.1, 3.9, 4.2, 4.0, 4.1, 3.9, 4.0, 4.1, 4.0]))
    assert found.probes == 10 and found.range == pytest.approx(4.2 / 3.9)
    assert found.slow_share == 0 and found.longest_spell_s == 0
    assert found.line() == (
        "machine speed: varied up to 1.1x during this run (p95/p5 1.1x; slower than 1.5x its median in 0% of 10 probes)"
    )


def test_a_burst_is_its_share_of_the_probes_and_its_longest_spell_in_time():
    works = [4.0] * 10 + [12.0, 16.0, 10.0, 14.0] + [4.0] * 5 + [9.0] + [4.0] * 5  # a spell of 4, then a lone one
    found = noise.speed(probes(works, every_s=1.5))
    assert found.probes == 25 and found.range == 4.0
    assert found.slow_share == pytest.approx(5 / 25)
    assert found.longest_spell_s == pytest.approx(4.5)  # first to last of the 4 in a row, 1.5 s apart
    assert found.p95_p5 < found.range  # the robust range leaves out the extremes
    assert found.text().endswith("slower than 1.5x its median in 20% of 25 probes, the longest such spell 4.5 s)")


def test_lone_slow_probes_are_never_a_spell():
    found = noise.speed(probes([4.0, 9.0, 4.0, 4.0, 9.0, 4.0, 4.0, 4.0]))
    assert found.longest_spell_s == 0
    assert found.text().endswith("in 25% of 8 probes, never two in a row)")


def test_too_few_probes_say_so_and_none_say_nothing():
    found = noise.speed(probes([4.0, 12.0, 4.0, 4.0]))
    assert found.range is None and found.slow_share is None
    assert found.line() == "machine speed: 4 probes, too few to say how it varied (it takes 5)"
    assert noise.speed(probes([4.0])).text() == "1 probe, too few to say how it varied (it takes 5)"
    assert noise.speed([]) is None


def test_the_probe_is_a_fixed_amount_of_work_timed_in_ns():
    assert noise._work(noise.WORK) == noise.WORK % 128
    assert noise.probe() > 0


class Probes:
    """A store that keeps the probes it is given."""

    def __init__(self):
        self.added = []

    def add_probe(self, run_id, probe):
        self.added.append((run_id, probe))


def test_the_meter_probes_at_most_once_per_its_period_in_the_machines_turn(monkeypatch):
    monkeypatch.delenv(machine_lock.TAKE_TURNS)  # as a user's run: its probes take turns
    held = []
    monkeypatch.setattr(noise, "probe", lambda: held.append(machine_lock._held) or 4 * MS)
    store = Probes()
    meter = noise.Meter.started(store, 7)
    assert not machine_lock._held  # the floors and calibrations take their own turns
    meter.between()  # within PROBE_EVERY of the first
    assert [(run_id, p.work_ns) for run_id, p in store.added] == [(7, 4 * MS)]
    meter.every = 0
    meter.between()
    assert len(store.added) == 2 and store.added[1][1].at_ns >= store.added[0][1].at_ns
    assert held == [True, True]
    assert machine_lock._held  # kept for the next trial
    meter.every = 3600
    meter.between()
    assert not machine_lock._held and len(store.added) == 2


def test_probes_round_trip_through_a_sqlite_store_each_once(tmp_path):
    store = open_store(tmp_path / "probes.db")
    run_id = store.begin_run({"profile": "smoke"}, {})
    other = store.begin_run({"profile": "smoke"}, {})
    for probe in (Probe(3 * SECOND, 5 * MS), Probe(1 * SECOND, 4 * MS), Probe(1 * SECOND, 4 * MS)):
        store.add_probe(run_id, probe)
    store.add_probe(other, Probe(2 * SECOND, 6 * MS))
    assert store.probes(run_id) == [Probe(1 * SECOND, 4 * MS), Probe(3 * SECOND, 5 * MS)]
    assert open_store(tmp_path / "probes.db", create=False).probes(other) == [Probe(2 * SECOND, 6 * MS)]
