"""Finding 8 (contract): schemathesis ``--checks all`` against the live server — uvicorn as in
the Procfile, a real Celery worker — with bounded examples per operation: every status is
documented, every body matches its schema, invalid input is refused, no 5xx; a valid-looking
request is refused only where a listed cross-field rule applies.

Bounded: ``--max-examples`` per operation, a request timeout, and token revocation left out (it
would log the run's own token out). The rate limits are raised for this run only, so it tests the
contract rather than the limiter (429 is documented on every authenticated operation)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.services import api_token_create
from tests.conftest import ARTIFACTS

MAX_EXAMPLES = 6
# "A request valid by the schema was refused" (ST202) is expected only here, where the server
# applies a rule OpenAPI 3.0 cannot state, and answers 400 naming the field. schemathesis 4.32 runs
# this check whatever --exclude-checks or its config file say, so the test names the exceptions.
CROSS_FIELD_RULES = {
    "POST /api/v1/portfolios": "each ticker must exist; weights add up to 1 unless normalise",
    "PATCH /api/v1/portfolios/{portfolio_id}": "the same holdings rules",
    "POST /api/v1/market/analyze": "tickers or a portfolio; one weight per ticker; tickers must exist",
    "POST /api/v1/watchlists": "each ticker must exist; recipients are e-mail addresses",
    "PATCH /api/v1/watchlists/{watchlist_id}": "the same watchlist rules",
    "POST /api/v1/research/search": "filters have fixed keys (doc_types, issuers, tags, dates, ids)",
    "POST /api/v1/research/documents": "each file must be a PDF or text document",
    "POST /api/v1/chat/turns/{turn_id}/cancel": "a finished or cancelled turn cannot be cancelled",
    "POST /api/v1/reviews/tasks/{task_id}/decide": "a decided task cannot be decided again",
    "POST /api/v1/briefs/runs": "the watchlist must have tickers and be yours",
    "POST /api/v1/evaluate": "tags must name tags or cases of the suite; a live engine needs its API key",
}
# Issue 49: a control character anywhere in a JSON body — in a property the schema lists, or in
# one it does not (the server ignores extra properties, so schemathesis sends them) — is refused at
# the edge with a 400 naming the rule (core/hygiene.py; the API description states it). OpenAPI 3.0
# cannot state a rule over property names, so a ST202 whose answer is that refusal is expected.
CONTROL_CHARACTER_REFUSAL = "The request contains a control character"
# The readiness check answers 503 by design when a component is down; on a loaded machine the
# test's Celery worker can miss the one-second ping, so a 503 there is the check working.
READINESS_503 = {("GET /api/v1/health", "ST101")}


@pytest.mark.worker
def test_schemathesis_finds_no_failure(
    uvicorn_factory: Callable[..., Any], celery_worker: Any, analyst: Any, tmp_path: Any
) -> None:
    raw = api_token_create(user=analyst, name="schemathesis", scopes=["api"])[1]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    schema_path = tmp_path / "schema.json"
    schema_path.write_text(json.dumps(schema.json()))
    server = uvicorn_factory(
        "adk-schemathesis",
        API_THROTTLE_TOKEN="100000/min",
        API_THROTTLE_USER="100000/min",
        API_TOKEN_MAX_ACTIVE_PER_USER="1000",
    )
    ARTIFACTS.mkdir(exist_ok=True)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            str(schema_path),
            "--url",
            server.url,
            "-H",
            f"Authorization: Bearer {raw}",
            "--checks",
            "all",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--request-timeout",
            "20",
            "--exclude-path-regex",
            "/revoke$",
            "--seed",
            "17",
            "--generation-deterministic",
            "--no-color",
        ],
        cwd=tmp_path,  # its crash cache (.schemathesis/) would replay old runs' cases
        capture_output=True,
        text=True,
        timeout=600,
    )
    (ARTIFACTS / "schemathesis.txt").write_text(result.stdout + result.stderr)
    failures = _failures(result.stdout)
    assert "Test cases:" in result.stdout, result.stdout[-3000:] + result.stderr[-2000:]
    unexpected = {
        (op, code) for op, code in failures if (code != "ST202" or op not in CROSS_FIELD_RULES)
    } - READINESS_503
    assert not unexpected, (sorted(unexpected), result.stdout[-6000:])


def _failures(stdout: str) -> set[tuple[str, str]]:
    """(operation, check code) of every failure schemathesis printed."""
    found: set[tuple[str, str]] = set()
    operation = ""
    case: list[tuple[str, str]] = []  # the current test case's failures, until its answer is read

    def close_case(answer: str) -> None:
        for op, check in case:
            if not (check == "ST202" and CONTROL_CHARACTER_REFUSAL in answer):
                found.add((op, check))
        case.clear()

    answer: list[str] = []
    for line in stdout.splitlines():
        header = re.match(r"^_{3,} (GET|POST|PUT|PATCH|DELETE) (\S+) _{3,}$", line)
        if header or re.match(r"^\d+\. Test Case ID: ", line) or line.startswith("="):
            close_case("\n".join(answer))
            answer.clear()
        if header:
            operation = f"{header.group(1)} {header.group(2)}"
        code = re.match(r"^- (ST\d{3}) ", line)
        if code and operation:
            case.append((operation, code.group(1)))
        answer.append(line)
    close_case("\n".join(answer))
    return found
