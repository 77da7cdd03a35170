"""The embedded Redis keeps what it was given: its append-only file is flushed every second, so a
message queued for a Celery worker survives a kill -9 of the server (config/embedded.py).

Real servers in a directory of their own (not the session's), killed for real."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from config import embedded

# What Celery's Redis transport pushes onto the queue's list for a task (abridged).
MESSAGE = json.dumps({"headers": {"task": "core.tasks.worker_probe_complete", "id": "t-1"}, "body": "[[7], {}]"})


@pytest.fixture
def sock() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="adk-aof-", dir="/tmp"))  # a unix socket's path must stay short
    path = root / "redis.sock"
    yield path
    embedded.stop_redis(path)
    shutil.rmtree(root, ignore_errors=True)


def _kill_9(sock: Path) -> int:
    pid = embedded._started_redis[sock].pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while embedded._redis_alive(sock):
        assert time.monotonic() < deadline, "redis still answers after SIGKILL"
        time.sleep(0.05)
    return pid


@pytest.mark.worker
@pytest.mark.timeout(60)
def test_a_queued_message_survives_a_kill_9_of_redis(sock: Path) -> None:
    embedded.start_redis(sock)
    client = redis.Redis(unix_socket_path=str(sock))
    try:
        assert client.config_get("save") == {"save": "300 1 60 1000"}
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}

        client.lpush("celery", MESSAGE)
        time.sleep(1.5)  # appendfsync everysec: on disk within a second
        # No snapshot was taken (the save points are minutes away): what comes back is the AOF's.
        assert not (sock.parent / "dump.rdb").exists()
        killed = _kill_9(sock)

        embedded.start_redis(sock)
        assert embedded._started_redis[sock].pid != killed
        assert client.lrange("celery", 0, -1) == [MESSAGE.encode()]
    finally:
        client.close()


@pytest.mark.worker
@pytest.mark.timeout(60)
def test_data_from_before_the_aof_is_kept_when_the_aof_is_turned_on(sock: Path) -> None:
    """A directory with only a snapshot (written before the AOF was on) must not start empty, as
    Redis does when it is started with the AOF on and finds no AOF file."""
    embedded.start_redis(sock)
    client = redis.Redis(unix_socket_path=str(sock))
    try:
        client.set("kept", "from the snapshot")
        client.save()
        _kill_9(sock)
        (sock.parent / embedded.REDIS_AOF_FILE).unlink()  # as the directory was before the AOF

        embedded.start_redis(sock)
        assert client.get("kept") == b"from the snapshot"
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        deadline = time.monotonic() + 10
        while (
            client.info("persistence")["aof_rewrite_in_progress"] or client.info("persistence")["aof_rewrite_scheduled"]
        ):
            assert time.monotonic() < deadline, "the AOF was never written"
            time.sleep(0.05)
        _kill_9(sock)  # from now on the AOF alone carries the data
        (sock.parent / "dump.rdb").unlink()
        embedded.start_redis(sock)
        assert client.get("kept") == b"from the snapshot"
    finally:
        client.close()
