"""Read and write system calls per message of every pipe and socketpair row,
for docs/findings.md ("Read and write calls per message"): each kit run once,
directly (no harness, no spawner), under `strace -f -c`, with the quick
profile's parameters. Usage, from the project, once the runtimes are built:

    .venv/bin/python docs/tools/syscalls_per_message.py [RUNTIME ...]

strace slows every call, so a reader that finds more bytes waiting reads
fewer times than it would untraced: the figures are what each row's code
asks of the kernel, not a timing."""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from concbench import runtimes

PARAMS = {"groups": 10, "messages": 5000, "size": 1024}
KINDS = {
    "reads": {"read", "readv", "recvfrom", "recvmsg"},
    "writes": {"write", "writev", "sendto", "sendmsg"},
    "io_uring_enter": {"io_uring_enter"},
    "polls": {"epoll_wait", "epoll_pwait", "epoll_pwait2", "poll", "ppoll", "select", "pselect6"},
    "futex": {"futex"},
}


def counted(argv: list[str], request: dict) -> tuple[bool, dict[str, int]]:
    """Whether the kit answered ok, and its calls by name."""
    with tempfile.NamedTemporaryFile(suffix=".strace") as counts:
        done = subprocess.run(
            ["strace", "-f", "-c", "-U", "name,calls", "-o", counts.name, *argv],
            input=json.dumps(request) + "\n",
            capture_output=True,
            text=True,
            timeout=600,
        )
        calls = dict(re.findall(r"^\s*(\w+)\s+(\d+)\s*$", Path(counts.name).read_text(), re.MULTILINE))
    answer = done.stdout.strip().splitlines()[-1:] or ["{}"]
    return json.loads(answer[0]).get("ok") is True, {name: int(n) for name, n in calls.items()}


def main(wanted: list[str]) -> None:
    found = runtimes.load_all()
    messages = PARAMS["groups"] * PARAMS["messages"]
    print("workload\trow\t" + "\t".join(KINDS))
    for workload in ("pipe", "socketpair"):
        for runtime in [found[name] for name in wanted or found]:
            for mechanism in runtime.manifest.mechanisms:
                if runtime.na_reason(workload, mechanism, PARAMS) or runtime.unavailable(mechanism):
                    continue
                with tempfile.TemporaryDirectory() as scratch:
                    request = {"workload": workload, "kind": "fixed", "mechanism": mechanism, "params": PARAMS}
                    ok, calls = counted(
                        runtime.trial_command(()), {**request, "warmup": 0, "runs": 1, "scratch": scratch}
                    )
                per_message = [sum(calls.get(name, 0) for name in names) / messages for names in KINDS.values()]
                figures = [f"{n:.2f}" for n in per_message] + ([] if ok else ["FAILED"])
                print("\t".join([workload, f"{runtime.name}/{mechanism}", *figures]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
