import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest

from concbench import limits, orphans, trial
from concbench.errors import UserError

PY = sys.executable
FAKE = Path(__file__).parent / "fixtures" / "runtimes" / "fake"


def test_request_in_answer_out():
    code = "import json, sys; r = json.load(sys.stdin); print('x', file=sys.stderr); print(r['a'])"
    done = trial.run([PY, "-c", code], {"a": 41}, timeout=10)
    assert done.stdout == b"41\n" and done.stderr == "x\n"
    assert done.exit_code == 0 and done.signal is None and not done.timed_out
    assert done.maxrss_kb > 1000 and done.user_ns + done.sys_ns > 0


def test_the_child_gets_a_fresh_scratch_directory_that_is_removed():
    code = "import json, os, sys; d = json.load(sys.stdin)['scratch']; print(d, os.listdir(d))"
    done = trial.run([PY, "-c", code], {}, timeout=10)
    scratch, listing = done.stdout.decode().split(" ", 1)
    assert listing.strip() == "[]" and not os.path.exists(scratch)


def test_a_hang_is_killed_with_its_whole_process_group(tmp_path):
    pids = tmp_path / "pids"
    code = (
        "import json, os, sys, time; path = json.load(sys.stdin)['pids']\n"
        "if os.fork() == 0:\n"
        "    open(path, 'w').write(str(os.getpid())); time.sleep(60)\n"
        "time.sleep(60)"
    )
    done = trial.run([PY, "-c", code], {"pids": str(pids)}, timeout=0.5)
    assert done.timed_out and done.signal == 9
    assert done.wall_ns < 10e9
    grandchild = int(pids.read_text())
    assert _dead(grandchild), f"the trial's child {grandchild} outlived it"


def _dead(pid: int) -> bool:
    """Gone, or a zombie waiting for its new parent to reap it: nothing runs."""
    for _ in range(100):
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_output_is_capped_to_its_end():
    code = "import sys; sys.stdout.write('x' * 3_000_000 + '\\nlast\\n'); sys.stderr.write('e' * 200_000 + 'E')"
    done = trial.run([PY, "-c", code], {}, timeout=30)
    assert len(done.stdout) == trial.STDOUT_LIMIT and done.stdout.endswith(b"\nlast\n")
    assert len(done.stderr) == trial.STDERR_LIMIT and done.stderr.endswith("E")


def test_a_child_that_never_reads_its_request_is_fine():
    done = trial.run([PY, "-c", "print('done')"], {"big": "x" * 1_000_000}, timeout=10)
    assert done.stdout == b"done\n" and done.exit_code == 0


def test_a_missing_program_exits_127_and_says_why():
    done = trial.run(["/nonexistent/program"], {}, timeout=5)
    assert done.exit_code == 127 and "cannot run /nonexistent/program" in done.stderr


ADDR_NO_RANDOMIZE = 0x0040000
PERSONA = "import os; print(open('/proc/self/personality').read().strip(), os.environ.get('PYTHONHASHSEED'))"


def test_a_trial_runs_without_address_space_randomisation_and_with_fixed_hash_seeds(monkeypatch):
    monkeypatch.delenv("CONCBENCH_ASLR", raising=False)
    persona, seed = trial.run([PY, "-c", PERSONA], {}, timeout=10).stdout.split()
    assert int(persona, 16) & ADDR_NO_RANDOMIZE and seed == b"0"
    layouts = {trial.run(["grep", "-m1", "stack", "/proc/self/maps"], {}, timeout=10).stdout for _ in range(2)}
    assert len(layouts) == 1, layouts
    assert trial.conditions() == "ASLR off, PYTHONHASHSEED=0"


def test_concbench_aslr_on_keeps_the_trials_randomised(monkeypatch):
    monkeypatch.setenv("CONCBENCH_ASLR", "on")
    persona, seed = trial.run([PY, "-c", PERSONA], {}, timeout=10).stdout.split()
    assert not int(persona, 16) & ADDR_NO_RANDOMIZE and seed == b"0"
    assert trial.conditions() == "ASLR on, PYTHONHASHSEED=0"
    monkeypatch.setenv("CONCBENCH_ASLR", "yes")
    with pytest.raises(UserError, match="CONCBENCH_ASLR is on or off"):
        trial.conditions()


def test_peak_memory_is_the_trials_own_not_the_harness():
    ballast = bytearray(300_000_000)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page: the harness is now large
    done = trial.run([PY, "-c", "x = bytearray(50_000_000); x[::4096] = b'y' * len(x[::4096])"], {}, 30)
    assert 50_000 < done.maxrss_kb < 150_000
    del ballast


def test_a_crash_is_reported_with_its_signal():
    done = trial.run([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], {}, 10)
    assert done.signal == 11 and done.exit_code is None and done.maxrss_kb > 0


def _pids_when_written(path, count, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) >= count:
            return [int(p) for p in path.read_text().split()[:count]]
        time.sleep(0.05)
    raise AssertionError(f"{path} never had {count} pids")


# Starts a child that leaves the process group and session (setsid) and a
# grandchild of its own, writes the three pids, then does what TAIL says.
ESCAPE = (
    "import json, os, sys, time; path = json.load(sys.stdin)['pids']\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(3600)\n"
    "    open(path + '.tmp', 'w').write(f'{os.getppid()} {os.getpid()} '); time.sleep(3600)\n"
    "while not os.path.exists(path + '.tmp'): time.sleep(0.01)\n"
    "os.rename(path + '.tmp', path)\n"
)


def test_what_leaves_the_process_group_is_killed_with_the_trial_and_counted(tmp_path):
    pids = tmp_path / "pids"
    done = trial.run([PY, "-c", ESCAPE + "print('answered')"], {"pids": str(pids)}, timeout=20)
    assert done.exit_code == 0 and not done.timed_out and done.stdout == b"answered\n"
    assert done.strays == 2  # the child in its own session and its grandchild
    assert all(_dead(pid) for pid in _pids_when_written(pids, 2)), "a process outlived its trial"


def test_an_honest_trial_leaves_no_strays():
    done = trial.run([PY, "-c", "import os; pid = os.fork()\nif pid: os.waitpid(pid, 0)"], {}, timeout=20)
    assert done.exit_code == 0 and done.strays == 0


def test_the_trial_and_all_it_started_die_with_the_harness(tmp_path):
    """SIGKILL of the harness mid-trial: the spawner cleans up as it dies; the
    scratch directory it could not remove goes at the next clean-up."""
    pids, scratch = tmp_path / "pids", tmp_path / "scratch"
    hang = (
        ESCAPE.replace(
            "path = json.load(sys.stdin)['pids']",
            f"request = json.load(sys.stdin); path = request['pids']; "
            f"open({str(scratch)!r}, 'w').write(request['scratch'])",
        )
        + "time.sleep(3600)"
    )
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    harness = subprocess.Popen(
        [
            PY,
            "-c",
            "import sys; from concbench import trial; "
            f"trial.run([sys.executable, '-c', {hang!r}], {{'pids': {str(pids)!r}}}, 60)",
        ],
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    try:
        left = _pids_when_written(pids, 2)
    finally:
        harness.kill()
        harness.wait()
    assert all(_dead(pid) for pid in left), "a trial's process outlived its harness"
    assert os.path.isdir(scratch.read_text())
    with mock.patch("tempfile.gettempdir", return_value=str(temporary)):
        assert "1 scratch directory" in orphans.clean()
    assert not os.path.exists(scratch.read_text())


def test_what_a_dead_harness_left_is_found_by_its_mark_and_removed(tmp_path):
    dead = "1.0"  # pid 1 did not start at tick 0
    stray = subprocess.Popen(["sleep", "60"], env={**os.environ, orphans.VARIABLE: dead})
    for _ in range(5000):  # Popen returns before exec has set up the new environment
        if orphans.VARIABLE.encode() in Path(f"/proc/{stray.pid}/environ").read_bytes():
            break
        time.sleep(0.001)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    (scratch / f"{orphans.SCRATCH_PREFIX}{dead}-abc").mkdir()
    mine = scratch / f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-abc"
    mine.mkdir()
    try:
        with mock.patch("tempfile.gettempdir", return_value=str(scratch)):
            cleaned = orphans.clean()
        assert stray.wait(timeout=10) == -9
        assert "1 process" in cleaned and "1 scratch directory" in cleaned
        assert mine.exists() and not (scratch / f"{orphans.SCRATCH_PREFIX}{dead}-abc").exists()
    finally:
        stray.kill()


needs_cgroups = pytest.mark.skipif(
    any(isinstance(c, str) for c in limits.controllers().values()),
    reason=f"no writable cgroups here: {limits.controllers()}",
)
CAPS = limits.Limits(memory_bytes=300 << 20, tasks=32)


@needs_cgroups
def test_a_runaway_is_stopped_at_the_memory_cap_and_says_so():
    code = "x = bytearray(600 << 20); x[::4096] = b'y' * len(x[::4096]); print('survived')"
    done = trial.run([PY, "-c", code], {}, timeout=60, caps=CAPS)
    assert done.signal == 9 and b"survived" not in done.stdout
    assert done.limit_hit == "the kernel stopped it at the memory cap of 300 MiB (an OOM kill in its cgroup)"


@needs_cgroups
def test_a_go_like_reservation_of_64_gib_runs_under_a_300_mib_cap():
    """What RLIMIT_AS would refuse: address space reserved, a little of it used."""
    done = trial.run(
        [PY, str(FAKE / "kit.py")],
        {"workload": "triangle", "kind": "fixed", "mechanism": "reserve", "params": {"n": 3}, "warmup": 0, "runs": 1},
        timeout=60,
        caps=CAPS,
    )
    assert done.exit_code == 0 and done.limit_hit == "", done.stderr
    assert 100_000 < done.maxrss_kb < 300_000


@needs_cgroups
def test_a_fork_past_the_process_cap_is_refused_and_says_so():
    code = "import os, time\nfor _ in range(100):\n    if os.fork() == 0: time.sleep(30)"
    done = trial.run([PY, "-c", code], {}, timeout=60, caps=CAPS)
    assert done.exit_code == 1 and "Resource temporarily unavailable" in done.stderr
    assert done.limit_hit == "a fork or thread was refused at the cap of 32 processes and threads"
    assert done.strays == 30  # the cap, less the spawner and the trial


@needs_cgroups
def test_a_trials_cgroups_are_removed_after_it():
    trial.run([PY, "-c", "pass"], {}, timeout=20, caps=CAPS)
    for c in limits.controllers().values():
        assert not list(c.parent.glob(f"{orphans.SCRATCH_PREFIX}{orphans.mark()}-*"))


def _relay_marked(line: str, scratch: str) -> str | None:
    return f"{line[len('relay:') :]} in {os.path.basename(scratch)}" if line.startswith("relay:") else None


ECHO_LINES = "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"


def test_the_lines_a_trial_says_for_the_process_beside_it_start_it_and_reach_it_in_order():
    code = "import sys, time; print('hello'); print('relay:a', flush=True); time.sleep(0.2); print('relay:b')"
    done = trial.run([PY, "-c", code], {}, timeout=20, beside=trial.Beside([PY, "-c", ECHO_LINES], _relay_marked))
    assert done.exit_code == 0 and done.stdout.startswith(b"hello\n")
    lines = done.beside.stdout.decode().splitlines()
    assert [line.split(" in ")[0] for line in lines] == ["a", "b"] and done.beside.exit_code == 0
    assert lines[0].endswith("concbench-") is False and lines[0].split(" in ")[1].startswith(orphans.SCRATCH_PREFIX)


def test_a_trial_that_says_nothing_for_it_starts_no_process_beside_it():
    done = trial.run([PY, "-c", "print('done')"], {}, timeout=20, beside=trial.Beside([PY, "-c", "1/0"], _relay_marked))
    assert done.exit_code == 0 and done.beside is None


def test_the_process_beside_a_trial_failing_stops_the_trial_that_waits_for_it():
    code = "import time; print('relay:go', flush=True); time.sleep(60)"
    done = trial.run(
        [PY, "-c", code], {}, timeout=30, beside=trial.Beside([PY, "-c", "raise SystemExit(3)"], _relay_marked)
    )
    assert done.beside.exit_code == 3
    assert done.signal is not None and done.wall_ns < 20e9
    assert not done.timed_out  # stopped before its deadline: it did not time out


def test_the_process_beside_finds_the_scratch_folder_the_trial_started_with_even_after_a_swap(tmp_path):
    """The trial renames its scratch away and leaves a link to another folder
    in its place: descriptor 4 is still the folder the harness made."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "planted").touch()
    code = (
        "import json, os, sys; scratch = json.load(sys.stdin)['scratch']; open(scratch + '/mine', 'w').close();"
        f"os.rename(scratch, {str(tmp_path / 'moved')!r}); os.symlink({str(tmp_path / 'elsewhere')!r}, scratch);"
        "print('relay:go', flush=True)"
    )
    listing = f"import os; print(sorted(os.listdir({trial.SCRATCH_FD})))"
    done = trial.run([PY, "-c", code], {}, timeout=20, beside=trial.Beside([PY, "-c", listing], _relay_marked))
    assert done.beside.stdout.decode() == "['mine']\n"
    assert (tmp_path / "elsewhere" / "planted").exists()  # the link was removed, not what it points to


def test_an_overlong_line_is_never_relayed_even_when_its_end_looks_like_one():
    code = f"import sys; sys.stdout.write('x' * {trial.RELAYED_LINE_LIMIT * 3} + 'relay:no\\n'); print('relay:yes')"
    done = trial.run([PY, "-c", code], {}, timeout=20, beside=trial.Beside([PY, "-c", ECHO_LINES], _relay_marked))
    assert [line.split(" in ")[0] for line in done.beside.stdout.decode().splitlines()] == ["yes"]


@needs_cgroups
def test_the_cgroups_of_a_trial_and_the_process_beside_it_are_never_taken_for_a_dead_harnesss():
    code = (
        "import time; print('relay:x', flush=True); time.sleep(1)\n"
        "from concbench import limits, orphans\n"
        "print([d.name for d in limits.stale(orphans.SCRATCH_PREFIX, orphans.is_dead)])"
    )
    beside = trial.Beside([PY, "-c", ECHO_LINES], _relay_marked)
    done = trial.run([PY, "-c", code], {}, timeout=30, caps=CAPS, beside=beside)
    assert done.stdout.decode().splitlines()[-1] == "[]" and done.beside is not None


def test_a_trial_may_open_as_many_files_as_the_hard_limit_lets_it():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    code = "import resource; print(*resource.getrlimit(resource.RLIMIT_NOFILE))"
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
    try:
        done = trial.run([PY, "-c", code], {}, timeout=20)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert done.stdout.split() == [str(hard).encode()] * 2


INTERRUPTED_BESIDE = """
import os, signal, sys, threading
from concbench import trial
code = "import time; print('relay:x', flush=True); time.sleep(30)"
echo = "import sys\\nfor line in sys.stdin: print(line.strip(), flush=True)"
threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    trial.run([sys.executable, "-c", code], {}, 20, beside=trial.Beside([sys.executable, "-c", echo], lambda l, s: l))
except BaseException as e:
    print(type(e).__name__, e)
try:
    os.waitpid(-1, os.WNOHANG)
    print("a spawner left unreaped")
except ChildProcessError:
    pass
"""


def test_an_interrupt_while_the_process_beside_runs_stops_both_and_reaps_their_spawners(tmp_path):
    # In a fresh harness the trial's stdin, closed once its request is
    # written, has the number the process beside then gets for its pidfd:
    # known closed only by its number, it was taken for open, and closed.
    done = subprocess.run([PY, "-c", INTERRUPTED_BESIDE], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout == "KeyboardInterrupt \n", done.stdout + done.stderr
