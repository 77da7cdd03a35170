"""A whole brief rendered as plain text and HTML, compared line by line with text written by hand
from the house rules (briefs/render.py's docstring, core/formatting.py): 72 columns, the dateline
first, lead headlines indented, a partial-brief notice, each section under a ruled heading, the news
tone and risk events, bulleted headlines, the table's first column left-aligned and the figures
right-aligned, and the closing sentence."""

from __future__ import annotations

import datetime as dt

from briefs.claims import Claim
from briefs.draft import BriefDraft, BriefSection, Dateline, QuotedHeadline, TableRow
from briefs.render import claim_display, dateline_lines, render_text, short_name

AS_OF = dt.date(2025, 9, 30)
LONG_NAME = "Tata Consultancy Services and Technology Holdings of Mumbai and Pune"  # heading over 72


def claim(cid: str, ticker: str, metric: str, value: float, unit: str) -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1")  # fmt: skip


CLAIMS = [
    claim("c1", "^NSEI", "last_close", 24363.3, "pts"),
    claim("c2", "^NSEI", "change_1d_pct", -0.6410256410256387, "%"),
    claim("c3", "INFY.NS", "last_close", 1441.8, "INR"),
    claim("c4", "INFY.NS", "change_1d_pct", 1.5, "%"),
]
ALL = {c.id for c in CLAIMS}
DEAL = "Infosys wins a large multi-year deal from a European bank, its biggest this year"


def brief(**changes: object) -> BriefDraft:
    infy = BriefSection(
        ticker="INFY.NS",
        narrative="Infosys closed at {{c3}}, up {{c4}} on {{as_of}}; the stock held its gains all afternoon.\n"
        "Volumes were light.",
        sentiment="positive",
        risk_events=["earnings", "guidance"],
        headlines=[QuotedHeadline(text=DEAL, publisher="Mint")],
    )
    fields: dict[str, object] = {
        "title": "Morning brief",
        "summary": "The {{t:^NSEI}} fell {{c2}} to {{c1}}.",
        "lead_headlines": [QuotedHeadline(text="Markets slip")],
        "partial": True,
        "sections": [infy, BriefSection(ticker="TCS.NS", narrative="Quiet.")],
        "table": [TableRow(ticker="INFY.NS", refs={"last_close": "c3", "change_1d_pct": "c4"})],
        "dateline": Dateline(as_of=AS_OF, brief_date=AS_OF, source="snapshot"),
        "benchmark": "^NSEI",
        "names": {"INFY.NS": "Infosys Ltd.", "^NSEI": "NIFTY 50", "TCS.NS": LONG_NAME},
    }
    return BriefDraft.model_validate({**fields, **changes})


EXPECTED = """\
Morning brief
Data as of 30 Sep 2025, the latest session.
Prices: shipped historical snapshot, not live.

The NIFTY 50 fell 0.64% to 24,363.30 pts.
  “Markets slip” — news

PARTIAL BRIEF: some data could not be retrieved (see the notes in each section).

INFY.NS · Infosys
-----------------
Infosys closed at ₹1,441.80, up 1.50% on 30 Sep 2025; the stock held its
gains all afternoon.
Volumes were light.
News tone: positive. Risk events flagged: earnings, guidance.
  • “Infosys wins a large multi-year deal from a European bank, its
    biggest this year” — Mint

TCS.NS · Tata Consultancy Services and Technology Holdings of Mumbai and Pune
------------------------------------------------------------------------
Quiet.

At a glance
Ticker        Last   1-day  30-day  Volatility
INFY.NS  ₹1,441.80  +1.50%       —           —

Every figure in this brief was recomputed from the stored daily bars and
verified.
"""


def test_a_whole_brief_in_plain_text() -> None:
    assert render_text(brief(), CLAIMS, ALL) == EXPECTED


def test_an_empty_lead_and_a_given_title() -> None:
    text = render_text(brief(summary="", partial=False, lead_headlines=[], table=[]), CLAIMS, ALL, title="Brief 7")
    assert text.splitlines()[:5] == [
        "Brief 7",
        "Data as of 30 Sep 2025, the latest session.",
        "Prices: shipped historical snapshot, not live.",
        "",
        "",
    ]


def test_the_dateline_says_when_the_figures_are_from_and_where_they_came_from() -> None:
    assert dateline_lines(None) == ["Data as of: no market data in this brief."]
    assert dateline_lines(Dateline(source="snapshot")) == ["Data as of: no market data in this brief."]
    lagging = {"TCS.NS": dt.date(2025, 9, 25), "X.NS": dt.date(2025, 9, 24)}
    stale = Dateline(as_of=dt.date(2025, 9, 26), brief_date=AS_OF, sessions_behind=2, stale=True, source="yfinance",
                     news_as_of=AS_OF, lagging=lagging)  # fmt: skip
    assert dateline_lines(stale, {"TCS.NS": "Tata Consultancy Services Ltd"}) == [
        "Data as of 26 Sep 2025 — stale: the newest bar is 2 trading days older than this brief (30 Sep 2025).",
        "Older data: Tata Consultancy Services (TCS.NS) as of 25 Sep 2025, X.NS (X.NS) as of 24 Sep 2025.",
        "Prices: yfinance.",
        "News: RSS, as of 30 Sep 2025.",
    ]
    assert dateline_lines(stale)[1] == "Older data: TCS.NS (TCS.NS) as of 25 Sep 2025, X.NS (X.NS) as of 24 Sep 2025."
    plain = Dateline(as_of=AS_OF, news_source="Reuters")
    assert dateline_lines(plain) == [
        "Data as of 30 Sep 2025, the latest session.",
        "Prices: market data provider.",
        "News: Reuters.",
    ]
    with_news = Dateline(as_of=AS_OF, source="snapshot", news_as_of=AS_OF, news_source="Moneycontrol RSS")
    assert dateline_lines(with_news)[1:] == [
        "Prices: shipped historical snapshot, not live.",
        "News: Moneycontrol RSS, as of 30 Sep 2025.",
    ]


def test_short_names_and_displays() -> None:
    assert short_name("Reliance Industries Ltd.", "RELIANCE.NS") == "Reliance Industries"
    assert short_name("Tata Motors, Ltd", "TATAMOTORS.NS") == "Tata Motors"
    assert short_name("Fund X Ltd", "F") == "Fund X"
    assert short_name("Acme Holdings Ltd. Inc. plc", "A") == "Acme Holdings Ltd."  # two suffixes at most
    assert short_name("", "TCS.NS") == "TCS.NS"
    assert claim_display(CLAIMS[3]) == "+1.50%"
    assert claim_display(CLAIMS[3], magnitude=True) == "1.50%"


def test_the_as_of_comes_from_the_dateline_else_from_the_newest_claim() -> None:
    older = claim("c9", "TCS.NS", "last_close", 10.0, "INR").model_copy(update={"as_of": dt.date(2025, 9, 1)})
    dated = brief(summary="As of {{as_of}}.", sections=[BriefSection(ticker="TCS.NS", narrative="Quiet.")], table=[],
                  dateline=Dateline(as_of=dt.date(2025, 9, 15)), names={})  # fmt: skip
    assert render_text(dated, [older, *CLAIMS], ALL).splitlines()[4] == "As of 15 Sep 2025."
    undated = dated.model_copy(update={"dateline": None})
    text = render_text(undated, [older, *CLAIMS], ALL)
    assert text.splitlines()[:4] == [
        "Morning brief",
        "Data as of: no market data in this brief.",
        "",
        "As of 30 Sep 2025.",
    ]
    # a section for a ticker without a name is headed by the ticker; no figure cited: no closing sentence
    assert text.endswith("\nTCS.NS · TCS.NS\n---------------\nQuiet.\n")
    # figures cited in the prose only still get the closing sentence
    prose_only = brief(partial=False, table=[])
    assert render_text(prose_only, CLAIMS, ALL).endswith(
        "\nEvery figure in this brief was recomputed from the stored daily bars and\nverified.\n"
    )


def test_wrapping_is_at_exactly_seventy_two_columns() -> None:
    text59, text60 = "a" * 57 + " b", "a" * 58 + " b"  # quoted with "  • “…” — Mint": 72 and 73 columns
    section = BriefSection(ticker="TCS.NS", narrative="quiet " * 12 + "a",  # 73 characters
                           headlines=[QuotedHeadline(text=text59, publisher="Mint"),
                                      QuotedHeadline(text=text60, publisher="Mint")])  # fmt: skip
    text = render_text(brief(sections=[section], table=[], names={}), CLAIMS, ALL)
    body = text[text.index("TCS.NS · TCS.NS") :].splitlines()
    assert body[2:4] == ["quiet " * 11 + "quiet", "a"]
    assert body[5:8] == [f"  • “{text59}” — Mint", f"  • “{text60}” —", "    Mint"]


def test_titles_lagging_names_and_outside_text_in_plain_text() -> None:
    lagging = Dateline(as_of=AS_OF, source="snapshot", lagging={"INFY.NS": dt.date(2025, 9, 29)})
    draft = brief(title="{{t:INFY.NS}} & peers", summary="R&D <up> at {{t:INFY.NS}} & co.", dateline=lagging)
    lines = render_text(draft, CLAIMS, ALL).splitlines()
    assert lines[:5] == [
        "Infosys & peers",
        "Data as of 30 Sep 2025, the latest session.",
        "Older data: Infosys (INFY.NS) as of 29 Sep 2025.",
        "Prices: shipped historical snapshot, not live.",
        "",
    ]
    assert lines[5] == "R&D <up> at Infosys & co."  # plain text is not HTML-escaped
