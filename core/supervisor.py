"""The process supervisor of ``make demo``: keeps web, worker and beat running, and the embedded
servers answering, until Ctrl-C.

- Each program runs in its own session (process group), so a terminal's Ctrl-C reaches only the
  supervisor, which then stops them in order rather than all at once mid-task.
- A program that exits unexpectedly is started again after a pause that doubles from
  ``Backoff.first`` up to ``Backoff.cap`` and resets once a run has lasted ``Backoff.reset_after``.
  Whatever is left of its process group (a killed Celery worker's pool children) is killed first,
  so an old and a new worker never consume side by side.
- Watched servers (the embedded PostgreSQL and Redis, see ``DEMO_WATCHED_SERVERS``) are checked
  every ``watch_seconds`` and started again when they do not answer.
- On SIGINT, SIGTERM or SIGHUP each program gets SIGTERM — its main process only: Celery's prefork
  children die at once on a SIGTERM of their own, while the main process's warm shutdown lets
  them finish their tasks — then up to ``grace`` seconds, then SIGKILL for its whole group.
  A second Ctrl-C skips the rest of the wait.
- Each program's output is printed line by line behind its name; ``pid_file`` (JSON) names the
  current pid of every program and server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

COLOURS = ("36", "33", "35", "32", "34", "31")


class Watched(Protocol):
    """A server the supervisor keeps answering (config/embedded.py: EmbeddedPostgres, EmbeddedRedis)."""

    name: str

    def alive(self) -> bool: ...

    def restart(self) -> None: ...

    def pid(self) -> int | None: ...


@dataclass(frozen=True)
class Program:
    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Backoff:
    """Seconds to wait before each restart: first, doubling to cap; back to first after a run
    (or an up period) of at least reset_after seconds."""

    first: float = 1.0
    cap: float = 30.0
    reset_after: float = 60.0
    _next: float = 0.0

    def delay(self, uptime: float) -> float:
        if self._next == 0.0 or uptime >= self.reset_after:
            self._next = self.first
        delay = self._next
        self._next = min(self._next * 2, self.cap)
        return delay


@dataclass
class _Child:
    program: Program
    backoff: Backoff
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    start_at: float = 0.0  # when the next (re)start is due, while proc is None
    reader: threading.Thread | None = None


@dataclass
class _Server:
    server: Watched
    backoff: Backoff
    down_since: float | None = None
    try_at: float = 0.0
    since: float = field(default_factory=time.monotonic)  # its last start, or failed try to start it


class Supervisor:
    def __init__(
        self,
        programs: list[Program],
        watched: list[Watched] | tuple[Watched, ...] = (),
        *,
        grace: float = 60.0,
        out: IO[str] | None = None,
        pid_file: Path | None = None,
        backoff: Backoff | None = None,
        watch_seconds: float = 1.0,
        cwd: Path | None = None,
    ) -> None:
        template = backoff or Backoff()
        self.children = [_Child(p, Backoff(template.first, template.cap, template.reset_after)) for p in programs]
        self.servers = [_Server(s, Backoff(template.first, template.cap, template.reset_after)) for s in watched]
        self.grace = grace
        self.out = out or sys.stdout
        self.pid_file = pid_file
        self.watch_seconds = watch_seconds
        self.cwd = cwd
        self._stop_signals = 0
        self._lock = threading.RLock()  # the signal handler logs too, maybe mid-write
        self._width = max([len("supervisor"), *(len(p.name) for p in programs)])
        colour = getattr(self.out, "isatty", lambda: False)()
        names = ["supervisor", *(p.name for p in programs)]
        self._colours = {n: COLOURS[i % len(COLOURS)] for i, n in enumerate(names)} if colour else {}
        self._pids: dict[str, int | None] = {}

    # --- output ---------------------------------------------------------------------------------
    def log(self, name: str, text: str) -> None:
        prefix = f"{time.strftime('%H:%M:%S')} {name:<{self._width}} | "
        if name in self._colours:
            prefix = f"\033[{self._colours[name]}m{prefix}\033[0m"
        with self._lock:
            self.out.write(prefix + text.rstrip("\n") + "\n")
            self.out.flush()

    def _pump(self, name: str, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self.log(name, raw.decode("utf-8", "replace"))
        stream.close()

    # --- programs -------------------------------------------------------------------------------
    def _start(self, child: _Child) -> None:
        program = child.program
        child.proc = subprocess.Popen(  # noqa: S603  (our own commands)
            program.argv,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **program.env},
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        child.started_at = time.monotonic()
        assert child.proc.stdout is not None
        child.reader = threading.Thread(target=self._pump, args=(program.name, child.proc.stdout), daemon=True)
        child.reader.start()
        self.log("supervisor", f"started {program.name} (pid {child.proc.pid})")

    @staticmethod
    def _kill_group(pgid: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left in the group
            os.killpg(pgid, signal.SIGKILL)

    def _check_children(self, now: float) -> bool:
        """Restart what exited (once its pause is over); True when a pid changed."""
        changed = False
        for child in self.children:
            if child.proc is not None:
                code = child.proc.poll()
                if code is None:
                    continue
                self._kill_group(child.proc.pid)  # leftovers of the dead one (a worker's pool children)
                uptime = now - child.started_at
                delay = child.backoff.delay(uptime)
                child.proc, child.start_at, changed = None, now + delay, True
                self.log(
                    "supervisor",
                    f"{child.program.name} exited with code {code} after {uptime:.1f} s; restarting in {delay:g} s",
                )
            elif now >= child.start_at:
                self._start(child)
                changed = True
        return changed

    # --- servers --------------------------------------------------------------------------------
    def _check_servers(self, now: float) -> None:
        for entry in self.servers:
            name = entry.server.name
            if entry.server.alive():
                entry.down_since = None
                continue
            if entry.down_since is None:
                entry.down_since, entry.try_at = now, now
                self.log("supervisor", f"{name} is not answering; starting it again")
            if now < entry.try_at:
                continue
            try:
                entry.server.restart()
            except Exception as exc:  # a failed start is retried, never fatal
                delay = entry.backoff.delay(now - entry.since)
                entry.since = time.monotonic()  # the next failure doubles the pause, not resets it
                entry.try_at = entry.since + delay
                self.log("supervisor", f"{name} failed to start ({type(exc).__name__}: {exc}); again in {delay:g} s")
                continue
            self.log(
                "supervisor",
                f"{name} restarted (pid {entry.server.pid()}), "
                f"{time.monotonic() - entry.down_since:.1f} s after it was found not answering",
            )
            entry.down_since, entry.since = None, time.monotonic()

    def _write_pids(self) -> None:
        if self.pid_file is None:
            return
        pids: dict[str, int | None] = {"supervisor": os.getpid()}
        for child in self.children:
            pids[child.program.name] = child.proc.pid if child.proc is not None else None
        for entry in self.servers:
            pids[entry.server.name] = entry.server.pid() if entry.down_since is None else None
        if pids == self._pids:
            return
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        partial = self.pid_file.with_suffix(".tmp")
        partial.write_text(json.dumps(pids, indent=1) + "\n")
        partial.replace(self.pid_file)  # readers never see half a file
        self._pids = pids

    # --- lifetime -------------------------------------------------------------------------------
    def _on_signal(self, signum: int, frame: Any) -> None:
        self._stop_signals += 1
        if self._stop_signals == 1:
            self.log("supervisor", f"{signal.Signals(signum).name}: stopping (Ctrl-C again to kill at once)")

    def run(self) -> int:
        # SIGHUP too: a closed terminal no longer reaches the programs (sessions of their own).
        signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {sig: signal.signal(sig, self._on_signal) for sig in signals}
        try:
            next_watch = time.monotonic()
            while not self._stop_signals:
                if time.monotonic() >= next_watch:
                    self._check_servers(time.monotonic())
                    next_watch = time.monotonic() + self.watch_seconds
                    self._write_pids()
                if self._check_children(time.monotonic()):
                    self._write_pids()
                time.sleep(0.1)
        finally:
            self.stop()  # also when the loop itself failed: no program is left running unwatched
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if self.pid_file is not None:
                self.pid_file.unlink(missing_ok=True)
        return 0

    def stop(self) -> None:
        """SIGTERM to every program's main process; SIGKILL to its group after the grace period."""
        running = [c for c in self.children if c.proc is not None and c.proc.poll() is None]
        for child in running:
            assert child.proc is not None
            child.proc.send_signal(signal.SIGTERM)
        signals_seen = self._stop_signals
        deadline = time.monotonic() + self.grace
        while any(c.proc is not None and c.proc.poll() is None for c in running):
            if time.monotonic() >= deadline or self._stop_signals > signals_seen:
                break
            time.sleep(0.1)
        for child in self.children:
            if child.proc is None:
                continue
            if child.proc.poll() is None:
                self.log("supervisor", f"{child.program.name} still running: killing it")
            self._kill_group(child.proc.pid)  # the program and anything it left in its group
            child.proc.wait()
            if child.reader is not None:
                child.reader.join(timeout=2)
            self.log("supervisor", f"{child.program.name} stopped (exit code {child.proc.returncode})")
