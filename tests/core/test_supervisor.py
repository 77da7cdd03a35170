"""The demo's supervisor (core/supervisor.py) with small real programs: restarts with backoff,
output behind each name, Ctrl-C reaching only the supervisor, the stop's grace period.

The supervisor runs as a process of its own (it installs signal handlers), started from a
script that builds it from the programs given here."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from core.supervisor import Backoff, Supervisor
from tests.conftest import ROOT

SCRIPT = """
import json, sys
from pathlib import Path
from core.supervisor import Backoff, Program, Supervisor
spec = json.loads(sys.argv[1])
programs = [Program(name, argv) for name, argv in spec["programs"].items()]
backoff = Backoff(first=0.2, cap=0.8, reset_after=60)
sys.exit(Supervisor(programs, grace=spec["grace"], pid_file=Path(spec["pids"]), backoff=backoff).run())
"""


def _supervise(tmp_path: Path, programs: dict[str, str], grace: float = 5.0) -> tuple[subprocess.Popen[str], Path]:
    pids = tmp_path / "pids.json"
    spec = {"programs": {n: [sys.executable, "-c", code] for n, code in programs.items()}, "grace": grace}
    spec["pids"] = str(pids)
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, json.dumps(spec)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a terminal of its own: its process group is what Ctrl-C reaches
    )
    return proc, pids


def _wait_pids(pids: Path, *names: str) -> dict[str, int]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if pids.exists():
            current = json.loads(pids.read_text())
            if all(current.get(n) for n in names):
                return current
        time.sleep(0.05)
    raise AssertionError(f"no pids for {names}")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_backoff_doubles_to_its_cap_and_starts_again_after_a_long_run() -> None:
    backoff = Backoff(first=1, cap=30, reset_after=60)
    assert [backoff.delay(uptime=2) for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert backoff.delay(uptime=60) == 1  # it had stayed up a minute: a new failure, not the same one
    assert backoff.delay(uptime=5) == 2


def test_a_program_that_exits_is_started_again_after_a_growing_pause(tmp_path: Path) -> None:
    proc, pids = _supervise(tmp_path, {"flaky": "print('hello', flush=True); raise SystemExit(3)"})
    _wait_pids(pids, "flaky")
    time.sleep(2.5)  # starts at 0, ~0.2, ~0.6, ~1.4, ~2.2 s (pauses 0.2, 0.4, 0.8, 0.8)
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=15)
    lines = out.splitlines()
    exits = [line for line in lines if "flaky exited with code 3 after" in line]
    assert 3 <= len(exits) <= 6, out
    assert [line.rsplit("restarting in ", 1)[1] for line in exits[:3]] == ["0.2 s", "0.4 s", "0.8 s"], out
    assert all(line.endswith("restarting in 0.8 s") for line in exits[3:]), out  # the cap
    starts = sum("supervisor | started flaky (pid " in line for line in lines)
    hellos = sum(line.endswith("flaky      | hello") for line in lines)  # its output, behind its name
    assert starts in (len(exits), len(exits) + 1) and hellos in (starts - 1, starts), out
    assert proc.returncode == 0


def test_ctrl_c_reaches_only_the_supervisor_which_gives_each_program_its_grace(tmp_path: Path) -> None:
    polite = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, lambda *a: print('polite got SIGINT', flush=True))\n"
        "def term(*a):\n"
        "    print('finishing', flush=True); time.sleep(1); print('finished', flush=True); sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, term)\n"
        "print('ready', flush=True)\n"
        "while True: time.sleep(0.05)\n"
    )
    stubborn = (
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "while True: time.sleep(0.05)\n"
    )
    proc, pids = _supervise(tmp_path, {"polite": polite, "stubborn": stubborn}, grace=3)
    started = _wait_pids(pids, "polite", "stubborn")
    assert {os.getsid(started["polite"]), os.getsid(started["stubborn"])} == {started["polite"], started["stubborn"]}
    time.sleep(1.0)  # both print "ready" (their handlers are installed)

    stop = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does on Ctrl-C: the whole foreground group
    out, _ = proc.communicate(timeout=15)
    took = time.monotonic() - stop

    assert "got SIGINT" not in out, out  # the programs are in sessions of their own
    assert "polite     | finished" in out, out  # its SIGTERM handler ran to the end
    assert "polite stopped (exit code 0)" in out, out
    assert "stubborn still running: killing it" in out and "stubborn stopped (exit code -9)" in out, out
    assert 3 <= took < 6, took  # the grace period, then SIGKILL
    assert _gone(started["polite"]) and _gone(started["stubborn"])
    assert not pids.exists()  # removed when the supervisor stops
    assert proc.returncode == 0


class _Server:
    """A watched server that is down and fails to start twice before it starts."""

    name = "fake"

    def __init__(self) -> None:
        self.tries = 0

    def alive(self) -> bool:
        return self.tries > 2

    def restart(self) -> None:
        self.tries += 1
        if self.tries <= 2:
            raise RuntimeError("lock file exists")

    def pid(self) -> int | None:
        return 4242 if self.alive() else None


def test_a_server_that_fails_to_start_is_tried_again_after_a_growing_pause() -> None:
    out, server = io.StringIO(), _Server()
    supervisor = Supervisor([], [server], out=out, backoff=Backoff(first=1, cap=30, reset_after=60))
    entry = supervisor.servers[0]
    entry.since = time.monotonic() - 600  # up for ten minutes before it stopped answering

    supervisor._check_servers(time.monotonic())
    supervisor._check_servers(time.monotonic())  # within the pause: not tried again
    assert server.tries == 1
    assert round(entry.try_at - time.monotonic()) == 1
    entry.try_at = 0  # the pause is over
    supervisor._check_servers(time.monotonic())
    assert server.tries == 2
    assert round(entry.try_at - time.monotonic()) == 2  # doubled: the same outage, not a new one
    entry.try_at = 0
    supervisor._check_servers(time.monotonic())
    supervisor._check_servers(time.monotonic())  # answering: nothing more to do
    assert server.tries == 3

    log = [line.split(" | ", 1)[1] for line in out.getvalue().splitlines()]
    assert log[:3] == [
        "fake is not answering; starting it again",
        "fake failed to start (RuntimeError: lock file exists); again in 1 s",
        "fake failed to start (RuntimeError: lock file exists); again in 2 s",
    ]
    assert log[3].startswith("fake restarted (pid 4242), ") and len(log) == 4
