"""The lead: two to four sentences on what matters across the watchlist today.

1. the session: the benchmark's move and the biggest movers against it (stale data says so);
2. breadth: how the names split between gainers and decliners;
3. what stands out: new yearly highs or lows, unusually large moves, else the month's leaders;
4. the news: risk events with their headlines quoted as evidence, else the tone.

Each sentence is built from claim references, ticker references and words; never a figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from briefs.agent.facts import Facts
from briefs.agent.wording import is_flat, join_clauses, kind_noun, move, name
from briefs.draft import QuotedHeadline

MAX_LEAD_HEADLINES = 3


@dataclass
class Lead:
    sentences: list[str] = field(default_factory=list)
    headlines: list[QuotedHeadline] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def _opener(stale: bool) -> str:
    return "On {{as_of}}, the last session in the data, " if stale else "On {{as_of}}, "


def _session(movers: list[Facts], bench: Facts | None, stale: bool) -> str:
    """The benchmark's move and the best and worst names against it."""
    opener = _opener(stale)
    ranked = sorted(movers, key=lambda f: f.relative if f.relative is not None else (f.change or 0.0), reverse=True)
    if bench is not None and bench.has("change_1d_pct"):
        head = f"{opener}the {name(bench)} {move(bench, slot='lead')}"
        if len(ranked) >= 2:
            best, worst = ranked[0], ranked[-1]
            return (
                f"{head}; {name(best)} did best against it, as it {move(best)}, "
                f"and {name(worst)} did worst, as it {move(worst)}."
            )
        if ranked:
            only = ranked[0]
            side = "ahead of" if (only.relative or 0) > 0 else "behind"
            return f"{head}, and {name(only)} {move(only)}, {side} it."
        return head + "."
    if len(ranked) >= 2:
        best, worst = ranked[0], ranked[-1]
        return f"{opener}{name(best)} {move(best)}, the strongest move on the list, and {name(worst)} {move(worst)}."
    if ranked:
        return f"{opener}{name(ranked[0])} {move(ranked[0])}."
    return ""


def _breadth(movers: list[Facts], bench: Facts | None, lagging_bench: Facts | None) -> str:
    if len(movers) < 2:
        return ""
    up = sum(1 for f in movers if not is_flat(f.change) and (f.change or 0) > 0)
    down = sum(1 for f in movers if not is_flat(f.change) and (f.change or 0) < 0)
    if up == len(movers):
        text = "Gains were broad: every name on the list rose"
    elif down == len(movers):
        text = "Losses were broad: every name on the list fell"
    elif up > down:
        text = "Gainers outnumbered decliners"
    elif down > up:
        text = "Decliners outnumbered gainers"
    else:
        text = "Gainers and decliners were evenly matched"
    if bench is not None and bench.has("change_1d_pct"):
        ahead = sum(1 for f in movers if (f.relative or 0) > 0)
        if ahead == len(movers):
            text += ", and all of them beat the index"
        elif ahead == 0:
            text += ", and none of them kept up with the index"
        elif ahead * 2 > len(movers):
            text += ", and most of them beat the index"
        elif ahead * 2 < len(movers):
            text += ", and most of them lagged the index"
    if lagging_bench is not None:
        text += f"; the {name(lagging_bench)} data ends earlier, so no name is compared with it"
    return text + "."


def _standouts(ranked: list[Facts]) -> str:
    """New yearly highs or lows and unusually large moves (at most two), else the month's leaders."""
    items: list[str] = []
    for f in ranked:
        if not f.current:
            continue
        if f.at_high and f.has("high_52w"):
            items.append(f"{name(f)} closed at a new yearly high of {f.ref('high_52w')}")
        elif f.at_low and f.has("low_52w"):
            items.append(f"{name(f)} closed at its lowest in a year, {f.ref('low_52w')}")
        elif f.unusual:
            items.append(
                f"the move in {name(f)} was unusually large for {kind_noun(f)} with annualised volatility "
                f"of {f.ref('volatility_annualised_pct')}"
            )
        if len(items) == 2:
            break
    if items:
        text = "; ".join(items)
        return text[0].upper() + text[1:] + "."
    month = sorted(
        (f for f in ranked if f.current and f.has("return_30d_pct")), key=lambda f: f.values["return_30d_pct"]
    )
    if len(month) >= 2:
        return (
            f"Over the past month, {name(month[-1])} led with {month[-1].ref('return_30d_pct')} "
            f"and {name(month[0])} trailed with {month[0].ref('return_30d_pct')}."
        )
    return ""


def _events(facts: list[Facts], bench: Facts | None) -> tuple[list[str], list[QuotedHeadline]]:
    """Risk-event phrases and their evidence headlines (the benchmark's news is the market's)."""
    phrases: list[str] = []
    headlines: list[QuotedHeadline] = []
    named: set[str] = set()
    for f in facts:
        evidence = {e["event"]: e["headline"] for e in (f.news or {}).get("risk_evidence", [])}
        events = [e for e in f.risk_events if e in evidence and e not in named]
        if not events:
            continue
        named.update(events)
        whose = "market headlines" if bench is not None and f.ticker == bench.ticker else f"headlines on {name(f)}"
        phrases.append(f"{whose} flag {join_clauses(events)}")
        items = {i["title"]: i for i in (f.news or {}).get("items", [])}
        for event in events:
            item: dict[str, Any] = items.get(evidence[event], {"title": evidence[event]})
            if len(headlines) < MAX_LEAD_HEADLINES and all(h.text != item["title"] for h in headlines):
                headlines.append(
                    QuotedHeadline(
                        text=item["title"],
                        link=item.get("link", ""),
                        publisher=item.get("publisher", ""),
                        ticker=f.ticker,
                        event=event,
                    )
                )
    return phrases, headlines


def _news(facts: list[Facts], bench: Facts | None) -> tuple[str, list[QuotedHeadline]]:
    phrases, headlines = _events(facts, bench)
    if phrases:
        text = "In the news, " + join_clauses(phrases[:2])
        return text + (" (quoted below)." if headlines else "."), headlines
    labels = [str(f.news.get("label", "neutral")) for f in facts if f.news and f.news.get("items")]
    if not labels:
        retrieved = any(f.news is not None for f in facts)
        return ("No headlines in the news mention these names." if retrieved else "News could not be retrieved."), []
    tone = max(set(labels), key=labels.count)
    return f"The news flags no risk events; its tone is mostly {tone}.", []


def write_lead(facts: dict[str, Facts], scope: list[str], benchmark: str, *, stale: bool) -> Lead:
    """Two to four sentences across the watchlist (fewer only when there is nothing to say)."""
    bench = facts.get(benchmark) if benchmark else None
    if bench is not None and bench.missing:
        bench = None
    # Only names whose data is as new as the brief's are compared: an older "day" is another day.
    compared = bench if bench is not None and bench.current else None
    lagging_bench = bench if bench is not None and not bench.current else None
    members = [facts[t] for t in scope if t in facts and not facts[t].missing]
    movers = [
        f for f in members if f.current and f.has("change_1d_pct") and (bench is None or f.ticker != bench.ticker)
    ]
    ranked = sorted(members, key=lambda f: (f.current, f.importance()), reverse=True)
    lead = Lead()
    sentences = (_session(movers, compared, stale), _breadth(movers, compared, lagging_bench), _standouts(ranked))
    for sentence in sentences:
        if sentence and len(lead.sentences) < 3:
            lead.sentences.append(sentence)
    # The names' own news first (most notable first), then the market's (the benchmark's).
    news_facts = [f for f in ranked if bench is None or f.ticker != bench.ticker]
    news_facts += [facts[t] for t in scope if t in facts and facts[t].missing]
    news_facts += [bench] if bench is not None else []
    sentence, headlines = _news(news_facts, bench)
    lead.sentences.append(sentence)
    lead.headlines = headlines
    return lead
