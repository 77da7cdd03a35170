"""Fault: PostgreSQL in a smart shutdown — it keeps serving the sessions it has and refuses new ones.

A pooled session kept answering, so the readiness check read "database up" for minutes while every
worker task (whose sessions are new) failed. Induced for real on a second embedded server (the
session's own must stay up): SIGTERM to its postmaster with one session held open."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connections

from config import embedded
from core.health import _timed, check_database


def _wrapper_for(url: str) -> Any:
    """A Django connection wrapper for ``url``, the way settings would configure it."""
    import environ
    from django.db.backends.postgresql.base import DatabaseWrapper

    probe = environ.Env.db_url_config(url)
    settings_dict = connections.configure_settings({"default": probe})["default"]
    return DatabaseWrapper(settings_dict, alias="probe")


@pytest.mark.worker
@pytest.mark.timeout(120)
def test_readiness_fails_within_1_s_of_a_smart_shutdown_while_a_pooled_session_still_answers(
    tmp_path: Path,
) -> None:
    server = embedded.postgres_server(tmp_path)
    try:
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        url = str(server.get_uri("postgres"))
        wrapper = _wrapper_for(url)
        before = _timed(lambda: check_database(wrapper))
        assert before["status"] == "up", before

        held = psycopg.connect(url, autocommit=True)  # a pooled session, open before the shutdown
        os.kill(server.get_pid(), signal.SIGTERM)  # smart shutdown: existing sessions go on
        time.sleep(0.3)  # the postmaster has read its signal
        assert held.execute("SELECT 1").fetchone() == (1,)  # what a pooled check would have seen

        started = time.monotonic()
        during = _timed(lambda: check_database(wrapper))
        assert time.monotonic() - started < 1.0
        assert during["status"] == "down"
        assert "shutting down" in during["error"], during
        held.close()
    finally:
        server.cleanup()
