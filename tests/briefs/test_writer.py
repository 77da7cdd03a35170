"""The deterministic writer on a hand-made claim table (no database): a lead of two to four
sentences (movers against the benchmark, breadth, yearly extremes, risk events with evidence),
sections ordered by importance that say only what is notable, a table of every ticker, honest time.

The situation is built by hand so the expected words follow from it: AAA jumped to a new yearly
high on an unusually large move, DDD fell to a yearly low with a regulatory probe in its news, BBB
slipped, CCC was flat, and the index (the benchmark, outside the list) fell."""

from __future__ import annotations

import datetime as dt
import re

from briefs.agent.engine import make_dateline, trading_days_between, write_deterministic
from briefs.agent.wording import is_flat
from briefs.claims import Claim, prose_problems
from briefs.contract import assert_figure_free
from briefs.draft import BriefDraft

AS_OF = dt.date(2025, 9, 30)
SCOPE = ["BBB.NS", "AAA.NS", "CCC.NS", "DDD.NS"]
VALUES = {  # change %, last, 52w high, 52w low, 30-day %, volatility %
    "^NSEI": (-0.95, 24363.3, 26200.0, 21700.0, -4.37, 14.44),
    "AAA.NS": (3.9, 1000.0, 1000.0, 700.0, 8.0, 20.0),
    "BBB.NS": (-0.6, 500.0, 700.0, 400.0, -1.0, 25.0),
    "CCC.NS": (0.01, 300.0, 320.0, 250.0, 0.5, 22.0),
    "DDD.NS": (-2.0, 100.0, 180.0, 100.0, -9.0, 30.0),
}
METRICS = ("change_1d_pct", "last_close", "high_52w", "low_52w", "return_30d_pct", "volatility_annualised_pct")
PROBE = "SEBI probe into DDD accounts widens"


def _claims() -> list[Claim]:
    claims: list[Claim] = []
    for ticker in [*SCOPE, "^NSEI"]:
        for metric, value in zip(METRICS, VALUES[ticker], strict=True):
            unit = "%" if metric.endswith("_pct") else ("pts" if ticker == "^NSEI" else "INR")
            claims.append(Claim(id=f"c{len(claims) + 1}", ticker=ticker, metric=metric, value=value, unit=unit,
                                as_of=AS_OF, tool="compute_metrics", tool_call_id="t", source="snapshot"))  # fmt: skip
    return claims


def _ref(claims: list[Claim], ticker: str, metric: str) -> str:
    return "{{" + next(c.id for c in claims if c.ticker == ticker and c.metric == metric) + "}}"


SENTIMENT = {
    "DDD.NS": {
        "items": [{"title": PROBE, "link": "https://news.example/1", "publisher": "Wire"}],
        "label": "negative",
        "risk_events": ["regulatory probe"],
        "risk_evidence": [{"event": "regulatory probe", "headline": PROBE}],
    },
    "AAA.NS": {"items": [], "label": "neutral", "risk_events": []},
}
PRICES = {t: {"name": f"{t[:3].title()} Industries Ltd.", "kind": "equity"} for t in SCOPE} | {
    "^NSEI": {"name": "NIFTY 50", "kind": "index"}
}


def _write(stale: bool) -> tuple[list[Claim], BriefDraft]:
    claims = _claims()
    brief_date = dt.date(2026, 12, 1) if stale else dt.date(2025, 10, 1)
    dateline = make_dateline(claims, SENTIMENT, brief_date, 3)
    draft = write_deterministic(tickers=SCOPE, claims=claims, prices=PRICES, sentiment=SENTIMENT, partial=False,
                                benchmark="^NSEI", dateline=dateline)  # fmt: skip
    return claims, draft


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.])\s+(?=[A-Z{])", text) if s]


def test_the_lead_says_what_matters_across_the_list() -> None:
    claims, draft = _write(stale=True)
    lead = draft.summary
    sentences = _sentences(lead)
    assert 2 <= len(sentences) <= 4, sentences
    up, down = "(?:jumped|surged)", "(?:fell|dropped|declined|lost)"
    assert re.fullmatch(
        r"On \{\{as_of\}\}, the last session in the data, the \{\{t:\^NSEI\}\} (?:slipped|eased|edged down) "
        + re.escape(_ref(claims, "^NSEI", "change_1d_pct"))
        + rf"; \{{\{{t:AAA\.NS\}}\}} did best against it, as it {up} "
        + re.escape(_ref(claims, "AAA.NS", "change_1d_pct"))
        + rf", and \{{\{{t:DDD\.NS\}}\}} did worst, as it {down} "
        + re.escape(_ref(claims, "DDD.NS", "change_1d_pct"))
        + r"\.",
        sentences[0],
    ), sentences[0]
    # one up (AAA), two down (BBB, DDD), one flat (CCC); three of four did better than the index
    assert sentences[1] == "Decliners outnumbered gainers, and most of them beat the index."
    assert sentences[2] == (
        f"{{{{t:AAA.NS}}}} closed at a new yearly high of {_ref(claims, 'AAA.NS', 'high_52w')}; "
        f"{{{{t:DDD.NS}}}} closed at its lowest in a year, {_ref(claims, 'DDD.NS', 'low_52w')}."
    )
    assert sentences[3] == "In the news, headlines on {{t:DDD.NS}} flag regulatory probe (quoted below)."
    assert [(h.text, h.ticker, h.event) for h in draft.lead_headlines] == [(PROBE, "DDD.NS", "regulatory probe")]
    assert prose_problems(draft, claims, SCOPE, "^NSEI") == []  # references, tickers and directions agree


def test_sections_are_ordered_by_importance_and_say_only_what_is_notable() -> None:
    claims, draft = _write(stale=True)
    assert [s.ticker for s in draft.sections] == ["AAA.NS", "DDD.NS", "BBB.NS", "CCC.NS"]
    text = {s.ticker: s.narrative for s in draft.sections}
    assert "That is a new yearly high." in text["AAA.NS"]
    assert "unusually large" in text["AAA.NS"] and _ref(claims, "AAA.NS", "volatility_annualised_pct") in text["AAA.NS"]
    assert "That is its lowest close in a year." in text["DDD.NS"]
    assert "over the past month" in text["DDD.NS"].lower()  # a nine per cent fall in a month is notable
    assert "little changed" in text["CCC.NS"] and "month" not in text["CCC.NS"]  # a flat day, a quiet month
    assert "yearly" not in text["BBB.NS"] and "unusual" not in text["BBB.NS"]
    for section in draft.sections:
        assert assert_figure_free(section.narrative)
    # varied wording: the day's sentence is not one template repeated
    openings = {re.sub(r"\{\{[^}]+\}\}", "X", s.narrative.split(".")[0]) for s in draft.sections}
    assert len(openings) >= 3, openings
    assert draft.sections[1].headlines[0].text == PROBE  # the evidence first


def test_the_table_lists_every_ticker_and_the_benchmark() -> None:
    claims, draft = _write(stale=False)
    assert [row.ticker for row in draft.table] == [*SCOPE, "^NSEI"]
    assert draft.table[0].refs == {
        "last_close": _ref(claims, "BBB.NS", "last_close")[2:-2],
        "change_1d_pct": _ref(claims, "BBB.NS", "change_1d_pct")[2:-2],
        "return_30d_pct": _ref(claims, "BBB.NS", "return_30d_pct")[2:-2],
        "volatility_annualised_pct": _ref(claims, "BBB.NS", "volatility_annualised_pct")[2:-2],
    }


def test_stale_data_changes_the_wording_and_fresh_data_does_not() -> None:
    _, stale = _write(stale=True)
    _, fresh = _write(stale=False)
    assert stale.dateline is not None and fresh.dateline is not None
    assert stale.dateline.stale and stale.dateline.sessions_behind == 305
    assert stale.summary.startswith("On {{as_of}}, the last session in the data, ")
    assert not fresh.dateline.stale and fresh.dateline.sessions_behind == 1
    assert fresh.summary.startswith("On {{as_of}}, the {{t:^NSEI}}") and "last session in the data" not in fresh.summary


def test_trading_days_and_the_stale_threshold() -> None:
    tuesday = dt.date(2025, 9, 30)
    assert trading_days_between(tuesday, tuesday) == 0
    assert trading_days_between(tuesday, dt.date(2025, 10, 3)) == 3  # Wed, Thu, Fri
    assert trading_days_between(tuesday, dt.date(2025, 10, 6)) == 4  # the weekend does not count
    assert trading_days_between(dt.date(2025, 10, 3), dt.date(2025, 10, 6)) == 1
    claims = _claims()
    assert not make_dateline(claims, {}, dt.date(2025, 10, 3), 3).stale
    assert make_dateline(claims, {}, dt.date(2025, 10, 6), 3).stale


def test_flat_means_flat() -> None:
    assert is_flat(0.01) and is_flat(-0.049) and not is_flat(0.05) and is_flat(None)


def test_an_index_in_the_list_is_written_as_an_index() -> None:
    claims = _claims()
    dateline = make_dateline(claims, {}, None, 3)
    draft = write_deterministic(tickers=["^NSEI", "AAA.NS"], claims=claims, prices=PRICES, sentiment={},
                                partial=False, benchmark="^NSEI", dateline=dateline)  # fmt: skip
    index = next(s for s in draft.sections if s.ticker == "^NSEI")
    assert "the index" in index.narrative.lower() and "stock" not in index.narrative
    assert "That beat the index" not in index.narrative  # it is the benchmark: no comparison with itself


def test_a_benchmark_whose_data_ends_earlier_is_not_compared() -> None:
    """The demo's case: the NIFTY 50 series ends on 8 Aug 2025, the stocks' on 30 Sep 2025."""
    claims = [c.model_copy(update={"as_of": dt.date(2025, 8, 8)}) if c.ticker == "^NSEI" else c for c in _claims()]
    dateline = make_dateline(claims, SENTIMENT, dt.date(2026, 12, 1), 3)
    assert dateline.as_of == AS_OF
    draft = write_deterministic(tickers=[*SCOPE, "^NSEI"], claims=claims, prices=PRICES, sentiment=SENTIMENT,
                                partial=False, benchmark="^NSEI", dateline=dateline)  # fmt: skip
    assert draft.dateline is not None and draft.dateline.lagging == {"^NSEI": dt.date(2025, 8, 8)}
    first, second = _sentences(draft.summary)[:2]
    assert "{{t:^NSEI}}" not in first and "the strongest move on the list" in first
    assert second.endswith("; the {{t:^NSEI}} data ends earlier, so no name is compared with it.")
    assert "index" not in " ".join(s.narrative for s in draft.sections if s.ticker != "^NSEI")
    index = draft.sections[-1]
    assert index.ticker == "^NSEI"  # an older series goes after the current names
    assert index.narrative.startswith("Its data ends earlier than the rest of the list's: in its last session")
    from briefs.render import render_text

    text = render_text(draft, claims, {c.id for c in claims})
    assert "Older data: NIFTY 50 (^NSEI) as of 8 Aug 2025." in text
