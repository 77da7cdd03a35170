"""Portfolio test fixtures: a local HTTP server replaying recorded Yahoo responses, and a closed port."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "yahoo"


def _body(name: str) -> bytes:
    return json.dumps(json.loads((FIXTURES / name).read_text())["response"]["bodyJson"]).encode()


class YahooReplay(ThreadingHTTPServer):
    """Answers like query1/query2.finance.yahoo.com from the recorded exchanges (no internet)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[str] = []
        self.fail_next: list[int] = []  # statuses to answer before the recorded body (e.g. 429, 503)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


_NOT_FOUND = {
    "chart": {"result": None, "error": {"code": "Not Found", "description": "No data found, symbol may be delisted"}}
}


class _Handler(BaseHTTPRequestHandler):
    server: YahooReplay

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server.requests.append(self.path)
        if path == "/v1/test/getcrumb":
            return self._send(200, b"replaycrumb", "text/plain")
        if (
            path.startswith(("/v8/finance/chart/", "/v10/finance/quoteSummary/", "/v7/finance/quote"))
            and self.server.fail_next
        ):
            return self._send(self.server.fail_next.pop(0), b'{"error": "try later"}')
        if path == "/v8/finance/chart/AAPL":
            return self._send(200, _body("chart-AAPL-2020-08-31-to-2020-11-07.json"))
        if path.startswith("/v8/finance/chart/"):
            return self._send(404, json.dumps(_NOT_FOUND).encode())
        if path == "/v10/finance/quoteSummary/AAPL":
            return self._send(200, _body("quoteSummary-all-AAPL.json"))
        if path.startswith("/v7/finance/quote"):
            return self._send(200, _body("quote-AAPL.json"))
        return self._send(404, b"{}")


@pytest.fixture
def yahoo_replay() -> Iterator[YahooReplay]:
    server = YahooReplay()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on: connecting is refused at once (a dead network)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def yfinance_settings(settings: Any, tmp_path: Path) -> Any:
    import yfinance as yf

    yf.set_tz_cache_location(str(tmp_path / "yf-cache"))
    settings.MARKET_DATA_PROVIDER = "yfinance"
    settings.YFINANCE_RETRIES = 2
    settings.YFINANCE_TIMEOUT_SECONDS = 10.0  # generous: the machine is shared and busy
    settings.YFINANCE_MAX_REQUESTS_PER_MINUTE = 10_000
    return settings
