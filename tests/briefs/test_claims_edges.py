"""The brief verifier's reference, direction and headline checks at their edges (briefs/claims.py),
on claims written by hand: small changes after a direction word, unknown references beside known
ones, the benchmark's figures and name in a section, the title, table rows, long headlines, and
all three kinds of problem in one brief."""

from __future__ import annotations

import datetime as dt

from briefs.claims import Claim, claim_unit, mint_claims, prose_problems, verify
from briefs.draft import BriefDraft, BriefSection, QuotedHeadline, TableRow

D = dt.date
DATES = [D(2025, 9, 29), D(2025, 9, 30)]
BARS = {"INFY.NS": (DATES, [100.0, 100.4]), "^NSEI": (DATES, [200.0, 199.0])}


def claim(cid: str, ticker: str, metric: str, value: float, unit: str = "%") -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=D(2025, 9, 30),
                 tool="compute_metrics", tool_call_id="t1")  # fmt: skip


CLAIMS = [
    claim("c1", "INFY.NS", "change_1d_pct", 0.4),  # 100.4 / 100 − 1
    claim("c2", "^NSEI", "change_1d_pct", -0.5),  # 199 / 200 − 1
    claim("c3", "INFY.NS", "last_close", 100.4, "INR"),
]


def draft(summary: str = "Calm.", narrative: str = "Steady.", **extra: object) -> BriefDraft:
    return BriefDraft.model_validate(
        {"title": "Brief", "summary": summary, "sections": [{"ticker": "INFY.NS", "narrative": narrative}], **extra}
    )


def problems(d: BriefDraft, news: dict[str, list[dict[str, str]]] | None = None) -> list[str]:
    return verify(d, CLAIMS, BARS, news or {}, ["INFY.NS"], "^NSEI").problems


def test_a_small_change_still_has_a_direction() -> None:
    assert problems(draft(narrative="Infosys rose {{c1}} while the index fell {{c2}}.")) == []
    assert problems(draft(narrative="Infosys fell {{c1}}.")) == [
        "the INFY.NS text calls c1 a fall, but the figure does not say so"
    ]


def test_an_unknown_reference_after_a_direction_word_does_not_hide_the_next_one() -> None:
    assert problems(draft(narrative="It rose {{c9}} and fell {{c1}}.")) == [
        "c9 is not in the claim table",
        "the INFY.NS text calls c1 a fall, but the figure does not say so",
    ]


def test_the_benchmark_may_be_cited_and_named_in_a_section_and_anything_in_the_title() -> None:
    assert problems(draft(narrative="The {{t:^NSEI}} fell {{c2}}.")) == []
    assert problems(draft(title="{{t:INFY.NS}} at {{c3}}, the index {{c2}}")) == []
    # without a benchmark for the run, the index's figure in a section is out of place
    result = verify(draft(narrative="The index fell {{c2}}."), CLAIMS, BARS, {}, ["INFY.NS"])
    assert result.problems == ["c2 is a ^NSEI figure cited in the INFY.NS section"]


def test_a_table_row_may_cite_its_own_claims_only() -> None:
    own = draft(table=[TableRow(ticker="INFY.NS", refs={"last_close": "c3", "change_1d_pct": "c1"})])
    assert problems(own) == []
    other = draft(table=[TableRow(ticker="INFY.NS", refs={"change_1d_pct": "c2"})])
    assert problems(other) == ["the table row of INFY.NS cites c2, which is not one of its claims"]


def test_a_long_headline_is_named_by_its_first_eighty_characters() -> None:
    text = "Markets " + "x" * 90
    lead = draft(lead_headlines=[QuotedHeadline(text=text)])
    assert problems(lead) == [f"headline “{text[:80]}” was not retrieved for this brief"]


def test_every_kind_of_problem_is_reported_together() -> None:
    section = BriefSection(ticker="INFY.NS", narrative="It fell {{c1}}; see {{c7}}.",
                           headlines=[QuotedHeadline(text="Made up")])  # fmt: skip
    both = BriefDraft(title="Brief", summary="Calm.", sections=[section])
    assert problems(both, {"INFY.NS": [{"title": "Real news"}]}) == [
        "c7 is not in the claim table",
        "the INFY.NS text calls c1 a fall, but the figure does not say so",
        "headline “Made up” was not retrieved for INFY.NS",
    ]


def test_a_price_without_a_currency_is_minted_without_a_unit() -> None:
    prices = {"X": {"metrics": {"last_close": 10.0, "as_of": "2025-09-30"}, "metrics_call_id": "call-1"}}
    (only,) = mint_claims(prices, ["X"])
    assert (only.metric, only.unit, only.value) == ("last_close", "", 10.0)


def test_the_unit_a_metric_fixes() -> None:
    assert (claim_unit("last_close"), claim_unit("high_52w", "inr"), claim_unit("low_52w", "INR", "index")) == (
        "",
        "INR",
        "pts",
    )
    assert (claim_unit("change_1d_pct", "INR"), claim_unit("volatility_annualised_pct")) == ("%", "%")


def test_without_a_benchmark_no_other_ticker_may_be_named() -> None:
    named = draft(summary="{{t:XXXX}} moved.")
    expected = ["XXXX is named in the lead text but is not part of this run"]
    assert prose_problems(named, CLAIMS, ["INFY.NS"]) == expected
    assert verify(named, CLAIMS, BARS, {}, ["INFY.NS"]).problems == expected
