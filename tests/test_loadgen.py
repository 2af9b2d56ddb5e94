"""concbench's load generator (loadgen/loadgen.c) against small echo servers
run here, honest and lying, over TCP and Unix sockets."""

import importlib.util
import json
import os
import re
import socketserver
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

from concbench import cbuild, loadgen
from concbench.errors import UserError

SIZE = 64

# The fixture's servers, for the request bytes its parrot answers with, whatever it reads.
spec = importlib.util.spec_from_file_location("echo_fixture", FIXTURES / "served/server/workloads/echo.py")
echo_fixture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(echo_fixture)
SEED = echo_fixture.PARROT_SEED


def honest(number, request):
    return request


class EchoServer:
    """Echoes whole requests of SIZE bytes, one thread per connection, each
    answer made by `answer(number on its connection, request)`: an answer
    shorter than the request is sent and the connection closed after it."""

    def __init__(self, transport, answer=honest):
        self.served = 0
        self.bytes = 0
        self.changed = threading.Condition()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                number = 0
                while request := self.read_request():
                    reply = answer(number, request)
                    self.request.sendall(reply)
                    with server.changed:
                        server.bytes += len(reply)
                    if len(reply) < len(request):
                        break
                    number += 1
                with server.changed:
                    server.served += 1
                    server.changed.notify_all()

            def read_request(self):
                request = b""
                while len(request) < SIZE and (chunk := self.request.recv(SIZE - len(request))):
                    request += chunk
                return request

        if transport == "tcp":
            self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
            self.address = f"tcp:127.0.0.1:{self.server.server_address[1]}"
        else:
            self.folder = tempfile.TemporaryDirectory(prefix="loadgen")  # a short path: sun_path holds 108 bytes
            self.server = socketserver.ThreadingUnixStreamServer(f"{self.folder.name}/echo.sock", Handler)
            self.address = "unix:echo.sock"
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def served_all(self, connections, bytes):
        """Whether it served that many connections to the end (the generator
        may exit before the server's threads are done) and echoed that much."""
        with self.changed:
            self.changed.wait_for(lambda: self.served >= connections, timeout=10)
            return (self.served, self.bytes) == (connections, bytes)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers():
    started = []

    def start(transport="tcp", answer=honest):
        started.append(EchoServer(transport, answer))
        return started[-1]

    yield start
    for server in started:
        server.close()


def generate(addresses, connections=3, rate=2000, requests=200, size=SIZE, folder=None):
    """Runs the generator with the seed and an address line for each run, unix: names in folder."""
    options = {"connections": connections, "size": size, "rate": rate, "requests": requests}
    argv = [part for name, value in options.items() for part in (f"--{name}", str(value))]
    fds = (os.open(folder, os.O_RDONLY | os.O_DIRECTORY),) if folder else ()
    try:
        return subprocess.run(
            [loadgen.path(), *argv, *(["--folder-fd", str(fds[0])] if fds else [])],
            input="".join(line + "\n" for line in (str(SEED), *addresses)),
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=fds,
        )
    finally:
        for fd in fds:
            os.close(fd)


def folder_of(server):
    return server.folder.name if server.address.startswith("unix:") else None


def check_run(line, number, requests):
    run = json.loads(line)
    assert run["run"] == number and run["requests"] == requests and run["bytes"] == requests * SIZE
    assert run["connect_ns"] > 0 and run["elapsed_ns"] > 0 and run["send_lag_ns"] >= 0
    latency = run["latency_ns"]
    order = ["min", "p50", "p90", "p99", "p999", "p9999", "max"]
    assert [latency[k] for k in order] == sorted(latency[k] for k in order) and latency["min"] > 0
    assert latency["min"] <= latency["mean"] <= latency["max"]
    percentiles, values = zip(*run["distribution"])
    assert percentiles[:4] == (0.0, 25.0, 50.0, 62.5) and percentiles[-1] == 100.0
    assert list(percentiles) == sorted(set(percentiles)) and list(values) == sorted(values)
    assert values[0] == latency["min"] and values[-1] == latency["max"] and len(values) < 100
    return run


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_it_sends_every_request_and_reports_its_latency(servers, transport):
    server = servers(transport)
    done = generate([server.address], folder=folder_of(server))
    assert done.returncode == 0 and done.stderr == ""
    [line] = done.stdout.splitlines()
    check_run(line, 1, 200)
    assert server.served_all(3, 200 * SIZE)


def test_one_process_makes_a_run_for_each_address_line(servers):
    tcp, unix = servers("tcp"), servers("unix")
    done = generate([tcp.address, unix.address], connections=4, requests=100, folder=unix.folder.name)
    assert done.returncode == 0
    first, second = done.stdout.splitlines()
    check_run(first, 1, 100), check_run(second, 2, 100)
    assert tcp.served_all(4, 100 * SIZE) and unix.served_all(4, 100 * SIZE)


@pytest.mark.parametrize("transport", ["tcp", "unix"])
def test_connections_beyond_the_backlog_are_retried_and_some_get_no_request(servers, transport):
    """socketserver listens with a backlog of 5: the rest of the 20 connects
    are refused (unix) or wait for the SYN's retransmission (tcp)."""
    server = servers(transport)
    done = generate([server.address], connections=20, requests=5, folder=folder_of(server))
    check_run(done.stdout, 1, 5)
    assert server.served_all(20, 5 * SIZE)


def test_a_stall_counts_in_every_request_queued_behind_it(servers):
    """Open loop: the 100 requests are due within 0.1 s on one connection,
    and the server holds the first for 0.5 s. A generator that timed each
    request from when it sent it would see the stall once; from its due
    time, every request waited at least 0.4 s."""
    stalled = threading.Event()

    def stall_once(number, request):
        if not stalled.is_set():
            stalled.wait(0.5)
            stalled.set()
        return request

    server = servers(answer=stall_once)
    done = generate([server.address], connections=1, rate=1000, requests=100)
    run = check_run(done.stdout, 1, 100)
    assert run["latency_ns"]["min"] >= 400_000_000


def flip_byte_5(number, request):
    return request[:5] + bytes([request[5] ^ 1]) + request[6:] if number == 2 else request


def close_before_third(number, request):
    return b"" if number == 2 else request


def echo_half_of_third(number, request):
    return request[: SIZE // 2] if number == 2 else request


@pytest.mark.parametrize(
    "answer, message",
    [
        (flip_byte_5, r"connection [01], request \d+: echoed byte 5 differs"),
        (close_before_third, r"server closed connection [01] after 2 of 10 responses"),
        (echo_half_of_third, r"server closed connection [01] after 2 of 10 responses and 32 of 64 bytes of the next"),
    ],
)
def test_a_lying_server_fails_the_run_with_the_reason(servers, answer, message):
    server = servers(answer=answer)
    done = generate([server.address], connections=2, requests=20)
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    assert re.fullmatch(message, json.loads(line)["error"])


def test_an_address_that_cannot_be_reached_or_read_is_an_error(tmp_path):
    done = generate(["unix:echo.sock"], folder=tmp_path)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"error": "cannot connect to unix:echo.sock: No such file or directory"}
    done = generate(["ftp:127.0.0.1:21"])
    assert done.returncode == 1 and json.loads(done.stdout)["error"].startswith("bad address ftp:127.0.0.1:21")


def test_a_unix_socket_is_a_plain_name_in_the_folder_and_no_link(servers, tmp_path):
    server = servers("unix")
    (tmp_path / "link.sock").symlink_to(f"{server.folder.name}/echo.sock")
    for name in ["../echo.sock", f"{server.folder.name}/echo.sock", "echo.sock\r", "..", "."]:
        done = generate([f"unix:{name}"], folder=tmp_path)
        assert done.returncode == 1 and json.loads(done.stdout)["error"].startswith(f"bad address unix:{name}: a unix")
    done = generate(["unix:link.sock"], folder=tmp_path)
    assert json.loads(done.stdout) == {"error": "cannot connect to unix:link.sock: a link, not a socket"}
    done = generate(["unix:echo.sock"])
    assert json.loads(done.stdout)["error"].endswith("the folder of --folder-fd, which was not given")
    assert server.served_all(0, 0)


def test_the_request_bytes_follow_from_the_seed(servers):
    """A server that answers one seed's requests, whatever it reads, passes only at that seed."""
    parrot = servers(answer=lambda number, request: echo_fixture.request_bytes(SEED, number, SIZE))
    done = generate([parrot.address], connections=1, requests=20)
    assert done.returncode == 0, done.stdout
    other = servers(answer=lambda number, request: echo_fixture.request_bytes(SEED + 1, number, SIZE))
    done = generate([other.address], connections=1, requests=20)
    assert json.loads(done.stdout) == {"error": "connection 0, request 0: echoed byte 0 differs"}


def test_the_generator_runs_once_for_each_address_until_its_stdin_ends(servers):
    server = servers()
    done = generate([server.address, server.address])
    assert done.returncode == 0
    for number, line in enumerate(done.stdout.splitlines(), 1):
        check_run(line, number, 200)
    assert generate([]).returncode == 0 and generate([]).stdout == ""


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "--connections is missing"),
        (["--connections", "2", "--size", "8", "--rate", "10"], "--requests is missing"),
        (
            ["--connections", "2", "--size", "8", "--rate", "10", "--requests", "5"],
            "stdin ended before its first line, the seed",
        ),
        (["--connections", "0"], "--connections must be a whole number from 1 to 9223372036854775807, not '0'"),
        (["--size", "64k"], "--size must be a whole number from 1 to 9223372036854775807, not '64k'"),
        (["--rate"], "--rate needs a value"),
        (
            ["--threads", "2"],
            "unknown argument '--threads' (--connections --size --rate --requests --folder-fd)",
        ),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(argv, message):
    done = subprocess.run([loadgen.path(), *argv], input="", capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"concbench-loadgen: {message}\n"


def test_a_missing_compiler_or_a_failed_build_is_one_line(tmp_path, monkeypatch):
    broken = tmp_path / "broken.c"
    broken.write_text("int main(void) { return undeclared; }\n")
    with pytest.raises(UserError, match=r"^building the broken test program failed: \[.*undeclared"):
        cbuild.build(broken, "concbench-test-broken", "the broken test program")
    assert not (Path(loadgen.path()).parent / "concbench-test-broken").exists()
    monkeypatch.setattr(cbuild.shutil, "which", lambda name: None)
    with pytest.raises(UserError, match=r"^no C compiler to build the broken test program \("):
        cbuild.build(broken, "concbench-test-broken", "the broken test program")


def test_a_bad_seed_on_stdin_is_one_line_and_exits_2():
    argv = ["--connections", "2", "--size", "8", "--rate", "10", "--requests", "5"]
    done = subprocess.run([loadgen.path(), *argv], input="-1\n", capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "concbench-loadgen: the seed (stdin's first line) must be a whole number from 0 to 18446744073709551615, not '-1'\n"
    )


# Reads what /proc shows another process: None where it was refused, else
# whether the seed (argv[2]) was in it; a mem that opens is the leak itself.
SNOOP = """
import json, sys
pid, seed, found = sys.argv[1], sys.argv[2].encode(), {}
for part in ("cmdline", "environ", "mem"):
    try:
        with open(f"/proc/{pid}/{part}", "rb") as shown:
            found[part] = part == "mem" or seed in shown.read()
    except PermissionError:
        found[part] = None
print(json.dumps(found))
"""


def test_no_process_of_the_same_user_reads_the_seed_from_proc(tmp_path):
    """The seed is on stdin, not the command line, and the generator is not
    dumpable: its environ and mem are closed to the trial's user, whose
    reader opens a dumpable process's mem all the same. Root passes any
    such check, so as root both run as nobody."""
    user = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
    shared = Path(tempfile.mkdtemp(prefix="concbench-test-loadgen-"))  # not under root's 0700 tmp_path
    try:
        shared.chmod(0o755)
        generator = shared / "concbench-loadgen"
        generator.write_bytes(Path(loadgen.path()).read_bytes())
        generator.chmod(0o755)
        seed = "12345678901234567890"
        argv = [str(generator), "--connections", "1", "--size", "8", "--rate", "10", "--requests", "1"]
        with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, **user) as running:
            with subprocess.Popen(["sleep", "600"], **user) as dumpable:
                running.stdin.write(f"{seed}\n".encode())
                running.stdin.flush()
                waiting_for_addresses(running.pid)
                snooped = {
                    name: json.loads(
                        subprocess.run(
                            ["python3", "-c", SNOOP, str(pid), seed], capture_output=True, text=True, check=True, **user
                        ).stdout
                    )
                    for name, pid in (("generator", running.pid), ("sleep", dumpable.pid))
                }
                dumpable.kill()
            running.stdin.close()
    finally:
        for path in (shared / "concbench-loadgen", shared):
            path.unlink() if path.is_file() else path.rmdir()
    assert snooped["generator"] == {"cmdline": False, "environ": None, "mem": None}
    assert snooped["sleep"]["mem"] is True


def waiting_for_addresses(pid):
    """Waits until the generator, exec'd and so past its prctl, sleeps reading its stdin."""
    while "(concbench-loadg)" not in Path(f"/proc/{pid}/stat").read_text() or "pipe" not in wchan(pid):
        time.sleep(0.01)


def wchan(pid):
    return Path(f"/proc/{pid}/wchan").read_text()
