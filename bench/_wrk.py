"""wrk (a C load generator from Debian, ``make load-client``) as the load benchmark's client.

A Python client on the same two cores spends about as much CPU per request as the server does,
so the figures it gives are the pair's, not the server's. wrk costs next to nothing per request.
Each of the 50 connections sends requests in turn with the tokens of 50 analysts (one per
request, round robin), so the per-user and per-token paths are exercised as with real clients.
Loopback only, bounded by ``--duration``; status codes ≥ 400 and socket errors are counted."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

SCRIPT = """
local tokens = {}
for line in io.lines(os.getenv("WRK_TOKENS")) do tokens[#tokens + 1] = line end
local method, body = os.getenv("WRK_METHOD"), os.getenv("WRK_BODY")
local paths = {}
for p in string.gmatch(os.getenv("WRK_PATHS"), "[^,]+") do paths[#paths + 1] = p end
local i = 0
request = function()
  i = i + 1
  local headers = {["Authorization"] = "Bearer " .. tokens[(i % #tokens) + 1]}
  if body ~= "" then headers["Content-Type"] = "application/json" end
  return wrk.format(method, paths[(i % #paths) + 1], headers, body ~= "" and body or nil)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests": %d, "duration_us": %d, "p50_us": %d, "p95_us": %d, "p99_us": %d, ' ..
    '"status_errors": %d, "socket_errors": %d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
"""


def available() -> bool:
    return shutil.which("wrk") is not None


def run_wrk(
    url: str, tokens: list[str], paths: list[str], seconds: float, *, method: str = "GET", body: str = ""
) -> dict[str, Any]:
    """One wrk run: 2 threads, one connection per token; the row the load benchmark reports."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError("load only ever goes to the loopback address")
    with tempfile.TemporaryDirectory() as tmp:
        token_file, script = Path(tmp) / "tokens", Path(tmp) / "load.lua"
        token_file.write_text("\n".join(tokens) + "\n")
        script.write_text(SCRIPT)
        env = {"WRK_TOKENS": str(token_file), "WRK_METHOD": method, "WRK_BODY": body, "WRK_PATHS": ",".join(paths)}
        completed = subprocess.run(  # noqa: S603  (a fixed binary, our own arguments)
            [
                shutil.which("wrk") or "wrk",
                "-t2",
                f"-c{len(tokens)}",
                f"-d{int(seconds)}s",
                "--timeout",
                "30s",
                "-s",
                str(script),
                url,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=True,
        )
    line = next(x for x in completed.stdout.splitlines() if x.startswith("WRK "))
    stats = json.loads(line.removeprefix("WRK "))
    seconds_run = stats["duration_us"] / 1e6
    return {
        "requests": stats["requests"],
        "req/s": round(stats["requests"] / seconds_run, 1),
        "p50 ms": round(stats["p50_us"] / 1000, 1),
        "p95 ms": round(stats["p95_us"] / 1000, 1),
        "p99 ms": round(stats["p99_us"] / 1000, 1),
        "errors (≥ 400, socket)": stats["status_errors"] + stats["socket_errors"],
    }
