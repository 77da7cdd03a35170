"""Ingestion's database writes give way to the embedding model on a machine they share, and
the model's threads get the GIL sooner from the thread that writes (see INGEST_SWITCH_INTERVAL).

While a document is embedded, its passages of the step before are written: on the embedded
PostgreSQL (the default) that is a server process on the same cores, and its HNSW inserts delay
the model's batches whenever they take one of its cores. Lowering the CPU priority of
this connection's server process for the duration lets the writes run in the model's idle
moments instead (ingestion / model 0.86 → see docs/benchmarks.md "research_speed").

Only a reversible change is made: the priority comes back before the connection does. Linux
groups each session's processes for the scheduler (autogroup), and every PostgreSQL backend is
its own session, so its group's nice value is what counts there, and any owner may set it back
to 0. Without autogroup the process's own nice value counts, which only a privileged process
may lower again, so it is changed only then. A database on another machine is left alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection

YIELDING_NICE = 19
_PROC = Path("/proc")

# How soon a thread holding the GIL hands it to one that waits, while ingestion embeds (Python's
# default is 5 ms). The model's batch threads need the GIL briefly before and after each run, and
# the thread writing the passages holds it for its Python work (building rows, statement lines):
# every wait leaves a core idle. Two in-process A/Bs of bench/_ingest_speed rounds, interleaved
# (5 and 6 rounds each): ingestion / model 0.912 → 0.939 and 0.925 → 0.937 from 5 ms to 0.5 ms;
# a single round varies by ±0.03 on this machine, so the gain is about 0.01–0.03.
INGEST_SWITCH_INTERVAL = 0.0005
_switch_lock = threading.Lock()
_switch_users = 0
_switch_before = 0.0


def _autogroup_enabled() -> bool:
    try:
        return (_PROC / "sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def _local_backend_pid() -> int | None:
    """This connection's PostgreSQL process, when the server runs on this machine."""
    host = connection.settings_dict.get("HOST") or ""
    if host and not host.startswith("/") and host not in {"localhost", "127.0.0.1", "::1"}:
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = int(cursor.fetchone()[0])
    try:
        return pid if (_PROC / str(pid) / "comm").read_text().startswith("postgres") else None
    except OSError:  # another machine's process id after all, or a container boundary
        return None


def backend_nice(pid: int) -> int:
    """The nice value the scheduler applies to ``pid`` against this process's threads."""
    if _autogroup_enabled():
        # "/autogroup-42 nice 19"
        return int((_PROC / str(pid) / "autogroup").read_text().split()[-1])
    return os.getpriority(os.PRIO_PROCESS, pid)


def _set_backend_nice(pid: int, nice: int) -> None:
    if _autogroup_enabled():
        (_PROC / str(pid) / "autogroup").write_text(str(nice))
    else:
        os.setpriority(os.PRIO_PROCESS, pid, nice)


def _can_restore() -> bool:
    return _autogroup_enabled() or os.geteuid() == 0


def _restore_backend_nice(pid: int, nice: int) -> None:
    # An unprivileged process may change an autogroup's nice value once per 100 ms (the kernel
    # answers EAGAIN before that): a short document can end sooner, so wait for the turn.
    deadline = time.monotonic() + 2.0
    while True:
        try:
            return _set_backend_nice(pid, nice)
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextlib.contextmanager
def database_yields_to_model() -> Iterator[Callable[[], None]]:
    """Within the block, this connection's local PostgreSQL process runs at the lowest priority.
    The block may give the priority back sooner by calling what it is given, from any thread:
    once the model is on its last step, the writes still queued should run beside it at full
    speed, not after it. That call does not wait out the kernel's rate limit (the embedding
    thread makes it, and must not stall the model); the end of the block does."""
    pid = _local_backend_pid() if settings.RESEARCH_INGEST_DB_YIELDS else None
    before = None
    if pid is not None and _can_restore():
        with contextlib.suppress(OSError, ValueError):
            before = backend_nice(pid)
            _set_backend_nice(pid, max(before, YIELDING_NICE))
    lock = threading.Lock()

    def restore(set_nice: Callable[[int, int], None]) -> None:
        nonlocal before
        with lock:
            if pid is not None and before is not None:
                set_nice(pid, before)
                before = None

    def give_back() -> None:
        with contextlib.suppress(BlockingIOError):  # rate-limited: the end of the block restores it
            restore(_set_backend_nice)

    try:
        yield give_back
    finally:
        restore(_restore_backend_nice)


@contextlib.contextmanager
def model_threads_get_the_gil_sooner() -> Iterator[None]:
    """Within the block, the GIL changes hands every :data:`INGEST_SWITCH_INTERVAL`. The setting
    is the whole process's: overlapping blocks (two ingestions in one process) share it, and the
    one that ends last puts the previous interval back."""
    global _switch_users, _switch_before
    with _switch_lock:
        if _switch_users == 0:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(INGEST_SWITCH_INTERVAL)
        _switch_users += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_before)
