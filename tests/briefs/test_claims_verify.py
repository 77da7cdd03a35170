"""Minting claims and the brief verifier, on bars small enough to compute by hand.

INFY.NS closes 100 (29 Aug), 110 (1 Sep), 120 (29 Sep), 126 (30 Sep 2025): last close 126, previous
120, 1-day change +5 %, 30-day return +26 % (the baseline is the last bar on or before 31 Aug: 100),
52-week high 126 and low 100, no drawdown; volatility from Python's own ``statistics.stdev``.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics

import pytest

from briefs.claims import Claim, mint_claims, prose_problems, verify
from briefs.draft import BriefDraft, BriefSection, QuotedHeadline, TableRow

D = dt.date
DATES = [D(2025, 8, 29), D(2025, 9, 1), D(2025, 9, 29), D(2025, 9, 30)]
CLOSES = [100.0, 110.0, 120.0, 126.0]
BARS = {"INFY.NS": (DATES, CLOSES), "^NSEI": (DATES, [200.0, 198.0, 196.0, 194.04])}
VOL = statistics.stdev([math.log(1.1), math.log(120 / 110), math.log(1.05)]) * math.sqrt(252) * 100
HAND = {"last_close": 126.0, "previous_close": 120.0, "change_1d_pct": 5.0, "return_30d_pct": 26.0,
        "volatility_annualised_pct": VOL, "max_drawdown_pct": 0.0, "high_52w": 126.0, "low_52w": 100.0}  # fmt: skip


def _prices(**overrides: float | None) -> dict[str, dict[str, object]]:
    metrics = {**HAND, "currency": "INR", "as_of": "2025-09-30", "source": "snapshot", **overrides}
    index = {"last_close": 194.04, "change_1d_pct": -1.0, "currency": "INR", "as_of": "2025-09-30"}
    return {
        "INFY.NS": {"metrics": metrics, "metrics_call_id": "call-1", "kind": "equity"},
        "^NSEI": {"metrics": index, "metrics_call_id": "call-2", "kind": "index"},
        "TCS.NS": {"error": "unknown_ticker"},
    }


def test_claims_are_minted_in_order_once_each_and_never_for_a_missing_value() -> None:
    claims = mint_claims(_prices(max_drawdown_pct=None), ["INFY.NS", "TCS.NS", "INFY.NS", "^NSEI"])
    assert [(c.id, c.ticker, c.metric, c.unit) for c in claims] == [
        ("c1", "INFY.NS", "last_close", "INR"),
        ("c2", "INFY.NS", "previous_close", "INR"),
        ("c3", "INFY.NS", "change_1d_pct", "%"),
        ("c4", "INFY.NS", "return_30d_pct", "%"),
        ("c5", "INFY.NS", "volatility_annualised_pct", "%"),
        ("c6", "INFY.NS", "high_52w", "INR"),
        ("c7", "INFY.NS", "low_52w", "INR"),
        ("c8", "^NSEI", "last_close", "pts"),
        ("c9", "^NSEI", "change_1d_pct", "%"),
    ]
    first = claims[0]
    assert (first.value, first.as_of, first.tool) == (126.0, D(2025, 9, 30), "compute_metrics")
    assert first.tool_call_id == "call-1"
    assert (first.inputs, first.source, first.label) == ({"ticker": "INFY.NS"}, "snapshot", "last close")
    assert (claims[7].tool_call_id, claims[7].source) == ("call-2", "")


def test_claims_from_the_right_bars_verify_with_their_recomputed_values() -> None:
    claims = mint_claims(_prices(), ["INFY.NS", "^NSEI"])
    result = verify(BriefDraft(title="Brief", summary="Calm.", sections=[]), claims, BARS, {}, ["INFY.NS"], "^NSEI")
    assert result.ok and result.problems == [] and result.mismatched == []
    recomputed = {c.metric: c.recomputed for c in result.checks if c.ticker == "INFY.NS"}
    assert recomputed == pytest.approx(HAND, rel=1e-12, abs=1e-12)
    assert all(c.verified and c.reason == "" for c in result.checks)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"value": 126.01}, "recomputed value differs"),  # one cent off the last close
        ({"value": 126.0 * (1 + 2e-9)}, "recomputed value differs"),  # beyond the 1e-9 tolerance
        ({"as_of": D(2025, 9, 29)}, "recomputed value differs"),  # the right number for another day
        ({"ticker": "TCS.NS"}, "no stored bars to recompute from"),
        ({"metric": "trailing_pe"}, "not recomputable"),
    ],
)
def test_a_tampered_claim_is_caught(change: dict[str, object], reason: str) -> None:
    claims = mint_claims(_prices(), ["INFY.NS"])
    claims[0] = claims[0].model_copy(update=change)
    result = verify(BriefDraft(title="Brief", summary="Calm.", sections=[]), claims, BARS, {}, ["INFY.NS"])
    assert not result.ok and result.mismatched == ["c1"]
    assert (result.checks[0].verified, result.checks[0].reason) == (False, reason)
    assert [c.verified for c in result.checks[1:]] == [True] * 7


def _claims() -> list[Claim]:
    return mint_claims(_prices(), ["INFY.NS", "^NSEI"])  # c1..c8 INFY.NS, c9 ^NSEI last, c10 ^NSEI change


def _draft(summary: str, narrative: str, **extra: object) -> BriefDraft:
    section = BriefSection(ticker="INFY.NS", narrative=narrative, **extra)  # type: ignore[arg-type]
    return BriefDraft(title="Brief on {{t:INFY.NS}}", summary=summary, sections=[section])


def test_references_must_exist_and_belong_to_their_section() -> None:
    claims = _claims()
    fine = _draft("The {{t:^NSEI}} moved {{c10}}; {{t:INFY.NS}} closed at {{c1}}.", "It closed at {{c1}} as {{c9}}.")
    assert prose_problems(fine, claims, ["INFY.NS"], "^NSEI") == []
    draft = _draft("{{t:TCS.NS}} is quiet at {{c12}}.", "It closed at {{c10}}.")
    assert prose_problems(draft, claims, ["INFY.NS"], "") == [
        "c12 is not in the claim table",
        "TCS.NS is named in the lead text but is not part of this run",
        "c10 is a ^NSEI figure cited in the INFY.NS section",
    ]
    row = TableRow(ticker="INFY.NS", refs={"last_close": "c9", "change_1d_pct": "c99"})
    stray = BriefDraft(
        title="B", summary="Calm.", sections=[BriefSection(ticker="WIPRO.NS", narrative="Calm.")], table=[row]
    )
    assert prose_problems(stray, claims, ["INFY.NS"]) == [
        "section for WIPRO.NS, which is not on the watchlist",
        "the table row of INFY.NS cites c9, which is not one of its claims",
        "the table row of INFY.NS cites c99, which is not one of its claims",
    ]


def test_a_direction_word_must_agree_with_the_figure_after_it() -> None:
    claims = _claims()  # c3: INFY.NS +5 % in a day; c10: ^NSEI −1 % in a day; c1: a price
    assert prose_problems(_draft("The index fell {{c10}}.", "It rose {{c3}}."), claims, ["INFY.NS"], "^NSEI") == []
    wrong = _draft("The index rose {{c10}}.", "It fell {{c3}} and climbed {{c1}}.")
    assert prose_problems(wrong, claims, ["INFY.NS"], "^NSEI") == [
        "the lead text calls c10 a rise, but the figure does not say so",
        "the INFY.NS text calls c3 a fall, but the figure does not say so",
        "c1 (last_close) follows a direction word in the INFY.NS text: it is not a change",
    ]
    flat = mint_claims(_prices(change_1d_pct=0.004), ["INFY.NS"])  # shown as 0.00 %: neither a rise nor a fall
    assert prose_problems(_draft("Calm.", "It rose {{c3}}."), flat, ["INFY.NS"]) == [
        "the INFY.NS text calls c3 a rise, but the figure does not say so"
    ]


def test_a_quoted_headline_must_be_one_that_was_retrieved() -> None:
    claims = _claims()
    quoted = QuotedHeadline(text="Infosys wins a large deal")
    draft = _draft("Calm.", "Busy.", headlines=[quoted])
    news = {"INFY.NS": [{"title": "Infosys wins a large deal"}]}
    assert verify(draft, claims, BARS, news, ["INFY.NS"], "^NSEI").ok
    other = verify(draft, claims, BARS, {"^NSEI": news["INFY.NS"]}, ["INFY.NS"], "^NSEI")
    assert not other.ok and other.problems == ["headline “Infosys wins a large deal” was not retrieved for INFY.NS"]
    assert other.mismatched == []  # every figure verified: the headline alone fails the brief


def test_an_uncited_claim_that_fails_still_fails_the_brief() -> None:
    claims = mint_claims(_prices(), ["INFY.NS"])
    claims[7] = claims[7].model_copy(update={"value": 99.0})  # the 52-week low, cited nowhere
    result = verify(_draft("Calm.", "It closed at {{c1}}."), claims, BARS, {}, ["INFY.NS"])
    assert result.problems == [] and result.mismatched == ["c8"] and not result.ok
