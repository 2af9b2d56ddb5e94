import os
import sys
import time

from concbench import trial

PY = sys.executable


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
    code = ("import json, os, sys, time; path = json.load(sys.stdin)['pids']\n"
            "if os.fork() == 0:\n"
            "    open(path, 'w').write(str(os.getpid())); time.sleep(60)\n"
            "time.sleep(60)")
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
        except FileNotFoundError:
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


def test_peak_memory_is_the_trials_own_not_the_harness():
    ballast = bytearray(300_000_000)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page: the harness is now large
    done = trial.run([PY, "-c", "x = bytearray(50_000_000); x[::4096] = b'y' * len(x[::4096])"], {}, 30)
    assert 50_000 < done.maxrss_kb < 150_000
    del ballast


def test_a_crash_is_reported_with_its_signal():
    done = trial.run([PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], {}, 10)
    assert done.signal == 11 and done.exit_code is None and done.maxrss_kb > 0
