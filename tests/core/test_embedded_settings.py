"""The embedded PostgreSQL's own settings (config/embedded.py): written beside postgresql.conf,
included once, and in force from the server's next start."""

from __future__ import annotations

from pathlib import Path

import pytest

from config import embedded


def test_a_new_servers_settings_apply_from_its_next_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDED_PG_SHARED_BUFFERS", "160MB")  # neither PostgreSQL's default nor ours
    server = embedded.postgres_server(tmp_path)  # initdb, then the first start: PostgreSQL's defaults
    try:
        assert "128MB" in server.psql("SHOW shared_buffers;")
    finally:
        server.cleanup()
    server = embedded.postgres_server(tmp_path)
    try:
        assert "160MB" in server.psql("SHOW shared_buffers;")
        assert "15min" in server.psql("SHOW checkpoint_timeout;")  # PostgreSQL's own is 5min
    finally:
        server.cleanup()
    conf = (tmp_path / "pgdata" / "postgresql.conf").read_text()
    assert conf.count(f"include_if_exists = '{embedded.SERVER_SETTINGS_FILE}'") == 1  # once, however often started
