"""LangSmith: with ``LANGSMITH_TRACING=true`` and a key, a chat turn's run is also sent to LangSmith
(here a local fake endpoint that records what arrives), and the turn's answer is unchanged; without
them, nothing is sent. The trace in our own database is written either way."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(120)]


class _LangSmithSink(ThreadingHTTPServer):
    """Accepts whatever the LangSmith client sends and keeps it (path, headers, raw body)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.headers.get("Content-Encoding") == "gzip" or body[:2] == b"\x1f\x8b":
                    body = gzip.decompress(body)
                sink.requests.append(
                    {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                )
                reply = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_GET = do_POST = do_PATCH = _answer  # http.server dispatches on these names

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


def _reset_langsmith() -> None:
    """LangSmith caches the environment it read and its client; tests switch both."""
    import langsmith.run_trees as run_trees
    import langsmith.utils as ls_utils

    ls_utils.get_env_var.cache_clear()  # type: ignore[attr-defined]  # an lru_cache behind overloads
    run_trees._CLIENT = None


@pytest.fixture
def sink(monkeypatch: pytest.MonkeyPatch) -> Iterator[_LangSmithSink]:
    server = _LangSmithSink()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
    _reset_langsmith()
    yield server
    _reset_langsmith()
    server.shutdown()
    server.server_close()


def _flush() -> None:
    from langchain_core.tracers.langchain import wait_for_all_tracers

    wait_for_all_tracers()


def _posted(sink: _LangSmithSink) -> bytes:
    return b"".join(r["body"] for r in sink.requests if r["method"] in {"POST", "PATCH"})


def test_a_turn_is_sent_to_langsmith_when_tracing_is_on(ask: Any, sink: _LangSmithSink, monkeypatch: Any) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_API_KEY", "ls-test-key")
    _reset_langsmith()
    turn = ask("What is 2+2?")
    _flush()
    assert turn.status == "done" and [c["value"] for c in turn.claims] == [4]  # the answer is unchanged
    assert turn.steps.exists()  # our own trace is written as always
    posted = _posted(sink)
    assert any(r["path"].startswith("/runs") for r in sink.requests)
    assert b"research_chat" in posted  # the run name the chat graph is invoked with
    assert str(turn.pk).encode() in posted  # its metadata carries the turn id
    keys = {r["headers"].get("x-api-key") or r["headers"].get("X-Api-Key") for r in sink.requests}
    assert "ls-test-key" in keys


def test_nothing_is_sent_without_tracing(ask: Any, sink: _LangSmithSink) -> None:
    turn = ask("What is 2+2?")
    _flush()
    assert turn.status == "done" and [c["value"] for c in turn.claims] == [4]
    assert _posted(sink) == b""
    assert json.dumps(turn.verification)  # the verification record is plain JSON as usual
