"""The deterministic writer: rules that turn the claim table and the news into numeral-free prose.

It drives the same graph as an LLM writer would and obeys the same contract: it only *chooses*
which claims to cite (``{{cN}}``); it never writes a figure. Ticker symbols (which may contain
digits, e.g. 500325.BO) are section keys rendered by code, never part of the prose.
"""

from __future__ import annotations

from typing import Any

from briefs.claims import BriefDraft, BriefSection, Claim, QuotedHeadline


def _ref(claims: dict[str, Claim], metric: str) -> str | None:
    claim = claims.get(metric)
    return f"{{{{{claim.id}}}}}" if claim else None


def _narrative(by_metric: dict[str, Claim], news: dict[str, Any] | None) -> str:
    parts: list[str] = []
    close, change, prev = (_ref(by_metric, m) for m in ("last_close", "change_1d_pct", "previous_close"))
    if close and change and prev:
        parts.append(f"Closed at {close}, {change} on the day, after {prev} the session before.")
    elif close:
        parts.append(f"Closed at {close}.")
    month = _ref(by_metric, "return_30d_pct")
    if month:
        parts.append(f"Over the past month the stock moved {month}.")
    vol, dd = _ref(by_metric, "volatility_annualised_pct"), _ref(by_metric, "max_drawdown_pct")
    if vol and dd:
        parts.append(f"Annualised volatility stands at {vol}, with a maximum drawdown of {dd} over the history.")
    hi, lo = _ref(by_metric, "high_52w"), _ref(by_metric, "low_52w")
    if hi and lo:
        parts.append(f"The past year's closing range runs from {lo} to {hi}.")
    if not parts:
        parts.append("Market data for this ticker could not be retrieved for this brief.")
    if news is None:
        parts.append("News could not be retrieved.")
    elif not news.get("items"):
        parts.append("No headlines were found in its news feeds.")
    # The tone and risk events are rendered from the section's own fields (claims.news_line).
    return " ".join(parts)


def write_deterministic(
    *,
    tickers: list[str],
    claims: list[Claim],
    prices: dict[str, Any],
    sentiment: dict[str, Any],
    partial: bool,
) -> BriefDraft:
    sections: list[BriefSection] = []
    labels: list[str] = []
    for ticker in tickers:
        by_metric = {c.metric: c for c in claims if c.ticker == ticker}
        news = sentiment.get(ticker)
        if news and news.get("items"):
            labels.append(str(news.get("label", "neutral")))
        # Headlines that back a flagged risk event come first, so the reader sees the evidence.
        evidence = {e["headline"] for e in (news or {}).get("risk_evidence", [])}
        items = sorted((news or {}).get("items", []), key=lambda item: item["title"] not in evidence)
        headlines = [
            QuotedHeadline(text=item["title"], link=item.get("link", ""), publisher=item.get("publisher", ""))
            for item in items[:3]
        ]
        sections.append(
            BriefSection(
                ticker=ticker,
                narrative=_narrative(by_metric, news),
                headlines=headlines,
                sentiment=str((news or {}).get("label", "unknown")),
                risk_events=list((news or {}).get("risk_events", [])),
            )
        )
    tone = max(set(labels), key=labels.count) if labels else "unavailable"
    summary = f"Every figure below was recomputed from daily bars and verified. Overall news tone: {tone}."
    if partial:
        summary += " Some data could not be retrieved, so this brief is partial."
    return BriefDraft(title="Morning brief", summary=summary, sections=sections, partial=partial)
