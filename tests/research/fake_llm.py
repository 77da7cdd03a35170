"""A local HTTP server that speaks the Anthropic Messages API and the Gemini generateContent API.

Tests queue scripted replies (``server.script(...)``) and read back what the adapters sent
(``server.requests``). It is the network edge we cannot reach in tests — our own code is never
patched. Reusable by other apps' tests (briefs) and by benchmarks.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def anthropic_text(text: str, *, input_tokens: int = 12, output_tokens: int = 7, model: str = "claude-test") -> dict:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def anthropic_tool_use(
    name: str,
    arguments: dict[str, Any],
    *,
    text: str = "",
    model: str = "claude-test",
    input_tokens: int = 30,
    output_tokens: int = 15,
) -> dict:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "id": "toolu_fake1", "name": name, "input": arguments})
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def anthropic_error(status: int) -> dict:
    kind = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}.get(status, "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": f"fake {status}"}}


def gemini_text(text: str, *, prompt_tokens: int = 11, output_tokens: int = 6) -> dict:
    return {
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        },
        "modelVersion": "gemini-test",
    }


def gemini_function_call(name: str, arguments: dict[str, Any]) -> dict:
    return {
        "candidates": [
            {
                "content": {"parts": [{"functionCall": {"name": name, "args": arguments}}], "role": "model"},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 25, "candidatesTokenCount": 9, "totalTokenCount": 34},
        "modelVersion": "gemini-test",
    }


def gemini_error(status: int) -> dict:
    name = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}.get(status, "INVALID_ARGUMENT")
    return {"error": {"code": status, "message": f"fake {status}", "status": name}}


class FakeLLMServer:
    def __init__(self) -> None:
        self.replies: deque[tuple[int, dict]] = deque()
        self.default: tuple[int, dict] | None = None
        self.requests: list[dict[str, Any]] = []
        self.delay = 0.0  # seconds to wait before answering (cancellation tests)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(
                        {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                    )
                    if server.replies:
                        status, payload = server.replies.popleft()
                    elif server.default is not None:
                        status, payload = server.default
                    else:
                        status, payload = 500, {"error": {"code": 500, "message": "no scripted reply"}}
                if server.delay:
                    time.sleep(server.delay)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def script(self, *replies: tuple[int, dict]) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def fake_llm_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
