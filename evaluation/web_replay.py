"""A web-search provider that replays recorded results (``WEB_SEARCH_PROVIDER =
"evaluation.web_replay.search"``): evaluation cases get the same web results on every run, offline.

Which recording is served is the setting ``EVALUATION_WEB_REPLAY`` (a key of
``suites/web_replay.json``), set by the runner for the one case that asks for it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from django.conf import settings

from evaluation.suites import SUITES_DIR

PROVIDER = "evaluation.web_replay.search"


@cache
def recordings() -> dict[str, list[dict[str, str]]]:
    data = json.loads((SUITES_DIR / "web_replay.json").read_text())
    return {k: v for k, v in data.items() if isinstance(v, list)}


def search(query: str, max_results: int) -> list[dict[str, Any]]:
    """The recorded results of the active recording (the query only has to be non-empty)."""
    key = getattr(settings, "EVALUATION_WEB_REPLAY", "")
    if key not in recordings():
        raise LookupError(f"no web recording {key!r}")
    return [dict(r) for r in recordings()[key][:max_results]]
