"""The live web-search provider: ``ddgs`` (Dux Distributed Global Search) on DuckDuckGo's HTML
endpoint. Enable with ``WEB_SEARCH_PROVIDER=research.agent.tools.web_ddgs.search``.

The library is used unmodified. Its network edge is configurable the way any deployment needs:
``WEB_SEARCH_PROXY`` (an HTTP(S) proxy) and ``WEB_SEARCH_CA_BUNDLE`` (the CA file to trust, e.g. a
corporate TLS proxy's) — which is also how the tests point it at a local server replaying recorded
DuckDuckGo responses. What comes back is untrusted text from strangers' pages: control characters
are removed and lengths capped here; the agent quotes it, fenced and labelled, never as a fact of
its own, and a figure from it is shown only inside the quote with the page's address.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028-\u202e\ufeff]")


class WebSearchError(Exception):
    """The search could not be made (network, blocked, timeout): a message for the analyst."""


def _clean(text: Any, limit: int) -> str:
    return " ".join(_CONTROL.sub(" ", str(text or "")).split())[:limit]


def search(query: str, max_results: int) -> list[dict[str, str]]:
    """``[{title, url, snippet}]`` for ``query`` (at most ``max_results``); raises
    :class:`WebSearchError` when the search cannot be made. Only http(s) results are kept."""
    from ddgs import DDGS
    from ddgs.exceptions import DDGSException

    verify: bool | str = settings.WEB_SEARCH_CA_BUNDLE or True
    try:
        client = DDGS(
            proxy=settings.WEB_SEARCH_PROXY or None, timeout=settings.WEB_SEARCH_TIMEOUT_SECONDS, verify=verify
        )
        rows = client.text(
            query,
            region=settings.WEB_SEARCH_REGION,
            safesearch="moderate",
            max_results=max_results,
            backend=settings.WEB_SEARCH_BACKEND,
        )
    except DDGSException as exc:
        if "No results" in str(exc):
            return []
        raise WebSearchError(f"the web search did not answer ({type(exc).__name__})") from exc
    results = []
    for row in rows[:max_results]:
        url = _clean(row.get("href"), 500)
        if not url.startswith(("https://", "http://")):
            continue
        results.append({"title": _clean(row.get("title"), 200), "url": url, "snippet": _clean(row.get("body"), 400)})
    return results
