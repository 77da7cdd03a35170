"""An MCP bridge served by a real uvicorn (the project's ASGI app) on a free localhost port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn


class LiveASGIServer:
    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            "config.asgi:application",
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            proxy_headers=False,
            server_header=False,  # as the Procfile runs it
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def asgi_server(django_db_setup: Any) -> Iterator[LiveASGIServer]:
    server = LiveASGIServer()
    yield server
    server.stop()


@pytest.fixture
def mcp_url(asgi_server: LiveASGIServer, transactional_db: Any) -> str:
    """The /mcp endpoint; the test's rows are committed so the server's threads see them."""
    return f"{asgi_server.url}/mcp"


@pytest.fixture
def mcp_token(analyst: Any) -> str:
    from core.services import api_token_create

    return api_token_create(user=analyst, name="mcp test", scopes=["mcp"])[1]


def run_async(make_coro: Any) -> Any:
    """Run ``make_coro()`` on a fresh event loop in its own thread: the session's Playwright
    browser keeps an event loop running in the main thread, so asyncio.run() cannot be used there."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result()
