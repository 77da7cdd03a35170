"""The deterministic writer: rules that turn the claim table and the news into a figure-free brief.

It drives the same graph as an LLM writer would and obeys the same contract (``briefs.contract``):
it only *chooses* which claims to cite (``{{cN}}``) and names tickers by reference
(``{{t:SYMBOL}}``); it never writes a figure. Structure: a lead across the watchlist
(``briefs.agent.lead``), per-ticker sections ordered by importance that say only what is notable,
and a compact table of every ticker; the dateline (data as-of, staleness, news as-of) is code's.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from briefs.agent.facts import Facts, facts_for
from briefs.agent.lead import write_lead
from briefs.agent.wording import is_flat, kind_noun, move, move_verb, pronoun, subject, was
from briefs.claims import Claim
from briefs.draft import TABLE_METRICS, BriefDraft, BriefSection, Dateline, QuotedHeadline, TableRow

NO_MARKET_DATA = "Market data for this ticker could not be retrieved for this brief."
# Why, in words the reader can act on (the data agent's error codes; no figures).
MARKET_FAILURE_REASONS = {
    "provider_unavailable": "the market-data provider could not be reached",
    "unknown_ticker": "no instrument by this name is known",
    "no_data": "the provider has no prices for it",
}


def no_market_data(reason_code: str = "") -> str:
    reason = MARKET_FAILURE_REASONS.get(reason_code)
    return f"{NO_MARKET_DATA[:-1]}: {reason}." if reason else NO_MARKET_DATA


def _older_day(f: Facts) -> str:
    """A ticker whose data ends before the brief's: its last session, said as such."""
    last = f" to close at {f.ref('last_close')}" if f.has("last_close") else ""
    if not f.has("change_1d_pct"):
        return (
            f"Its data ends earlier than the rest of the list's; it last closed at {f.ref('last_close')}."
            if last
            else ""
        )
    return (
        f"Its data ends earlier than the rest of the list's: in its last session in the data, "
        f"{subject(f, capital=False)} {move(f)}{last}."
    )


def _day(f: Facts) -> str:
    """The day's move and close, in one of three wordings chosen per ticker."""
    if not f.current:
        return _older_day(f)
    subj = subject(f)
    if not f.has("change_1d_pct"):
        return f"{subj} closed at {f.ref('last_close')}." if f.has("last_close") else ""
    if not f.has("last_close"):
        return f"{subj} {move(f)} on the day."
    if is_flat(f.change):
        return (
            f"{subj} {was(f)} little changed on the day ({f.ref('change_1d_pct')}), closing at {f.ref('last_close')}."
        )
    verb = move_verb(f.change or 0.0, f)
    return (
        f"{subj} {verb} {f.ref('change_1d_pct')} to close at {f.ref('last_close')}.",
        f"Closing at {f.ref('last_close')}, {subject(f, capital=False)} {verb} {f.ref('change_1d_pct')} on the day.",
        f"{subj} {verb} {f.ref('change_1d_pct')} on the day and closed at {f.ref('last_close')}.",
    )[f.variant("day-wording", 3)]


def _against_benchmark(f: Facts, bench: Facts | None) -> str:
    if bench is None or f.relative is None or not bench.has("change_1d_pct"):
        return ""
    theirs = bench.ref("change_1d_pct")
    if abs(f.relative) < 0.25:
        return f"That was in line with the index, which moved {theirs}."
    if f.relative > 0:
        return ("That beat the index, which moved {r}.", "The index moved {r}, so it did better.")[
            f.variant("vs", 2)
        ].format(r=theirs)
    return ("That trailed the index, which moved {r}.", "The index moved {r}, so it lagged.")[
        f.variant("vs", 2)
    ].format(r=theirs)


def _range(f: Facts) -> str:
    it = pronoun(f).capitalize()
    if f.at_high:
        return "That is a new yearly high."
    if f.at_low:
        return "That is its lowest close in a year."
    if f.near_high and f.has("high_52w"):
        return f"{it} {'sit' if it == 'They' else 'sits'} close to the yearly high of {f.ref('high_52w')}."
    if f.near_low and f.has("low_52w"):
        return f"{it} {'are' if it == 'They' else 'is'} near the yearly low of {f.ref('low_52w')}."
    return ""


def _month(f: Facts) -> str:
    if not f.month_notable:
        return ""
    r30 = f.values["return_30d_pct"]
    it = pronoun(f)
    verb = ("gained", "added") if r30 > 0 else ("lost", "shed")
    has = "have" if it == "they" else "has"
    return f"Over the past month {it} {has} {verb[f.variant('month', 2)]} {f.ref('return_30d_pct')}."


def _news_note(f: Facts) -> str:
    if f.news is None:
        return "News could not be retrieved."
    if not f.news.get("items"):
        return "No recent headlines mention it."
    return ""


def narrative(f: Facts, bench: Facts | None, failure: str = "") -> str:
    """Only what is notable: the day, against the index, the yearly range, a big month, the news.
    A ticker without market data says so, and why (``failure``: the data agent's error code)."""
    if f.missing:
        return " ".join(p for p in (no_market_data(failure), _news_note(f)) if p)
    parts = [_day(f), _against_benchmark(f, bench) if f is not bench else "", _range(f)]
    if f.unusual:
        parts.append(
            f"The move was unusually large for {kind_noun(f)} with annualised volatility of "
            f"{f.ref('volatility_annualised_pct')}."
        )
    parts += [_month(f), _news_note(f)]
    return " ".join(p for p in parts if p)


def _headlines(news: dict[str, Any] | None) -> list[QuotedHeadline]:
    """Headlines that back a flagged risk event first, so the reader sees the evidence."""
    evidence = {e["headline"] for e in (news or {}).get("risk_evidence", [])}
    items = sorted((news or {}).get("items", []), key=lambda item: item["title"] not in evidence)
    return [
        QuotedHeadline(text=i["title"], link=i.get("link", ""), publisher=i.get("publisher", "")) for i in items[:3]
    ]


def trading_days_between(start: dt.date, end: dt.date) -> int:
    """Weekdays after ``start`` up to and including ``end`` (0 when end is not later)."""
    days = 0
    current = start
    while current < end:
        current += dt.timedelta(days=1)
        days += current.weekday() < 5
    return days


def make_dateline(
    claims: list[Claim], sentiment: dict[str, Any], brief_date: dt.date | None, stale_after: int
) -> Dateline:
    as_of = max((c.as_of for c in claims), default=None)
    behind = trading_days_between(as_of, brief_date) if as_of and brief_date else 0
    news_dates = [dt.date.fromisoformat(str(v["as_of"])[:10]) for v in sentiment.values() if v.get("as_of")]
    sources = sorted({str(v.get("source", "")) for v in sentiment.values() if v.get("source")})
    return Dateline(
        as_of=as_of,
        brief_date=brief_date,
        sessions_behind=behind,
        stale=behind > stale_after,
        source=", ".join(sorted({c.source for c in claims if c.source})),
        news_as_of=max(news_dates) if news_dates else None,
        news_source="; ".join(s for s in sources if s) or ("" if sentiment else "unavailable"),
    )


def write_deterministic(
    *,
    tickers: list[str],
    claims: list[Claim],
    prices: dict[str, Any],
    sentiment: dict[str, Any],
    partial: bool,
    benchmark: str = "",
    dateline: Dateline | None = None,
    failures: dict[str, str] | None = None,
) -> BriefDraft:
    """``failures``: ticker → the error code its market data failed with (for the reader's note)."""
    dateline = dateline or make_dateline(claims, sentiment, None, 0)
    facts = facts_for(tickers, claims, prices, sentiment, benchmark)
    bench = facts.get(benchmark) if benchmark else None
    dateline = dateline.model_copy(
        update={"lagging": {t: f.as_of for t, f in facts.items() if f.as_of is not None and not f.current}}
    )
    lead = write_lead(facts, tickers, benchmark, stale=dateline.stale)
    # Most notable first; names with older data, then names with none, last (ties keep list order).
    order = sorted(tickers, key=lambda t: (facts[t].missing, not facts[t].current, -facts[t].importance()))
    sections = [
        BriefSection(
            ticker=t,
            name=facts[t].name,
            narrative=narrative(facts[t], bench, (failures or {}).get(t, "")),
            headlines=_headlines(facts[t].news),
            sentiment=str((facts[t].news or {}).get("label", "unknown")),
            risk_events=facts[t].risk_events,
        )
        for t in order
    ]
    rows = [*tickers, *([benchmark] if benchmark and benchmark not in tickers and bench and not bench.missing else [])]
    table = [
        TableRow(ticker=t, name=facts[t].name, refs={m: facts[t].refs[m] for m in TABLE_METRICS if m in facts[t].refs})
        for t in rows
    ]
    return BriefDraft(
        title="Morning brief",
        summary=lead.text,
        lead_headlines=lead.headlines,
        sections=sections,
        table=table,
        dateline=dateline,
        benchmark=benchmark if bench is not None and not bench.missing else "",
        names={t: f.name for t, f in facts.items() if f.name},
        partial=partial,
    )
