"""A local news-feed server for the briefs suite: the shipped RSS capture by default, and per
ticker a dead feed (HTTP 503), an empty feed or an injected headline. Brief runs of the suite point
``BRIEF_NEWS_FEEDS`` at it, so they never reach the internet."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from evaluation.suites import SUITES_DIR

CAPTURE = SUITES_DIR / "feeds" / "thehindu_business_economy_rss_2025-04-03.xml"
NORMAL_HEADLINE = "Shares rise on strong quarterly margins"


def rss(titles: list[str]) -> bytes:
    items = "".join(
        f"<item><title>{t}</title><link>https://news.example/{i}</link></item>" for i, t in enumerate(titles)
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()


class FeedServer(ThreadingHTTPServer):
    """Serves ``/<feed>/<SYMBOL>.xml``; ``modes`` maps a symbol (or ``*``) to dead/empty/inject."""

    def __init__(self, injection: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.daemon_threads = True
        self.modes: dict[str, str] = {}
        self.injection = injection
        self.capture = CAPTURE.read_bytes()

    @property
    def templates(self) -> list[str]:
        port = self.server_address[1]
        return [f"http://127.0.0.1:{port}/yahoo/{{symbol}}.xml", f"http://127.0.0.1:{port}/google/{{symbol}}.xml"]

    def body(self, symbol: str) -> bytes | int:
        mode = self.modes.get(symbol, self.modes.get("*", "capture"))
        if mode == "dead":
            return 503
        if mode == "empty":
            return rss([])
        if mode == "inject":
            return rss([self.injection, NORMAL_HEADLINE])
        return self.capture


class _Handler(BaseHTTPRequestHandler):
    server: FeedServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        symbol = unquote(urlsplit(self.path).path).rsplit("/", 1)[-1].removesuffix(".xml")
        body = self.server.body(symbol)
        if isinstance(body, int):
            self.send_response(body)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def feed_server(injection: str) -> Iterator[FeedServer]:
    server = FeedServer(injection)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
