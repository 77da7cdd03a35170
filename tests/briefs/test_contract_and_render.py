"""The figure-free contract, units fixed by the metric, and rendering for people (no database).

Expected texts are written by hand from the house convention (core/formatting.py): U+2212 minus,
two-decimal percentages, ₹ for INR, points for an index."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import ValidationError

from briefs.claims import Claim, claim_unit, mint_claims
from briefs.contract import NumeralError, assert_figure_free, directional_references
from briefs.draft import BriefDraft, BriefSection, Dateline, TableRow
from briefs.markup import from_markup, to_markup
from briefs.render import render_text
from briefs.render_html import render_html

M = "\u2212"
AS_OF = dt.date(2025, 9, 30)


def _claim(cid: str, ticker: str, metric: str, value: float, unit: str) -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1", inputs={"ticker": ticker}, source="snapshot")  # fmt: skip


CLAIMS = [
    _claim("c1", "^NSEI", "last_close", 24363.3, "pts"),
    _claim("c2", "^NSEI", "change_1d_pct", -0.6410256410256387, "%"),
    _claim("c3", "INFY.NS", "last_close", 1441.8, "INR"),
    _claim("c4", "INFY.NS", "change_1d_pct", 1.5, "%"),
]


@pytest.mark.parametrize(
    "text",
    [
        "It rose 5 points.",
        "It rose ५.",
        "It rose ٥.",
        "It rose ５.",
        "It rose ½.",
        "It rose five per cent.",
        "A dozen names fell.",
        "Profit doubled.",
        "Sales halved.",
        "It gained a third.",
        "It rose {{c4}} pct.",
        "It closed at {{c3}} INR.",
        "It closed at Rs. {{c3}}.",
        "It moved {{c4}}%.",
        "Up by ten basis points.",
    ],
)
def test_figures_in_any_form_are_refused(text: str) -> None:
    with pytest.raises(NumeralError):
        assert_figure_free(text)


@pytest.mark.parametrize(
    "text",
    [
        "On {{as_of}}, {{t:INFY.NS}} rose {{c4}} to {{c3}}.",
        "No one expected the index to fall {{c2}}.",  # "no one" is not a count
        "Someone sold; the quarterly results are due.",  # "quarterly" and "someone" are words
        "It sits close to its yearly high.",
    ],
)
def test_prose_without_figures_passes(text: str) -> None:
    assert assert_figure_free(text) == text


def test_direction_words_are_read_before_a_reference() -> None:
    assert directional_references("It rose {{c4}}, the index fell by {{c2}} and is down {{c9}}.") == [
        ("c4", 1),
        ("c2", -1),
        ("c9", -1),
    ]


def test_a_claims_unit_is_fixed_by_its_metric() -> None:
    assert claim_unit("last_close", "INR", "index") == "pts"
    assert claim_unit("high_52w", "USD", "equity") == "USD"
    assert claim_unit("change_1d_pct", "INR", "index") == "%"
    with pytest.raises(ValidationError, match="its unit is %"):
        _claim("c9", "INFY.NS", "change_1d_pct", 1.0, "INR")
    with pytest.raises(ValidationError, match="currency code or pts"):
        _claim("c9", "INFY.NS", "last_close", 1.0, "%")
    minted = mint_claims(
        {"^NSEI": {"metrics": {"last_close": 24363.3, "change_1d_pct": -0.64, "currency": "INR", "as_of": "2025-09-30",
                               "source": "snapshot"}, "metrics_call_id": "x", "kind": "index"}},
        ["^NSEI"],
    )  # fmt: skip
    assert [(c.id, c.metric, c.unit) for c in minted] == [("c1", "last_close", "pts"), ("c2", "change_1d_pct", "%")]
    # the stored claim (and the API's export) carries a human label beside its key, and full precision
    stored = minted[1].model_dump(mode="json")
    assert (stored["metric"], stored["label"], stored["value"]) == ("change_1d_pct", "1-day change", -0.64)


def _draft(summary: str, narrative: str, table: bool = True) -> BriefDraft:
    return BriefDraft(
        title="Morning brief",
        summary=summary,
        sections=[BriefSection(ticker="INFY.NS", narrative=narrative)],
        table=[TableRow(ticker="INFY.NS", refs={"last_close": "c3", "change_1d_pct": "c4"}),
               TableRow(ticker="^NSEI", refs={"last_close": "c1", "change_1d_pct": "c2"})] if table else [],
        dateline=Dateline(as_of=AS_OF, brief_date=dt.date(2026, 12, 1), sessions_behind=305, stale=True,
                          source="snapshot"),
        benchmark="^NSEI",
        names={"INFY.NS": "Infosys Ltd.", "^NSEI": "NIFTY 50"},
    )  # fmt: skip


def test_rendered_text_has_human_figures_index_points_and_no_doubled_signs() -> None:
    draft = _draft("On {{as_of}}, the {{t:^NSEI}} fell {{c2}} to {{c1}}.", "It rose {{c4}} against {{c2}}.")
    text = render_text(draft, CLAIMS, {"c1", "c2", "c3", "c4"}, title="Morning brief: Mine — data as of 30 Sep 2025")
    lines = text.splitlines()
    assert lines[0] == "Morning brief: Mine — data as of 30 Sep 2025"
    assert lines[1] == (
        "Data as of 30 Sep 2025 — stale: the newest bar is 305 trading days older than this brief (1 Dec 2026)."
    )
    assert "On 30 Sep 2025, the NIFTY 50 fell 0.64% to 24,363.30 pts." in text  # "fell −0.64%" never
    assert f"It rose 1.50% against {M}0.64%." in text  # a direction word takes the magnitude; a bare figure its sign
    assert "INR" not in text and "{{" not in text and "0.6410256410256387" not in text
    assert "INFY.NS · Infosys" in text
    table = text[text.index("At a glance") :].splitlines()
    assert table[2].split() == ["INFY.NS", "₹1,441.80", "+1.50%", "—", "—"]
    assert table[3].split() == ["^NSEI", "24,363.30", "pts", f"{M}0.64%", "—", "—"]
    assert text.rstrip().endswith("Every figure in this brief was recomputed from the stored daily bars and\nverified.")


def test_unverified_figures_never_render_and_the_verified_sentence_tells_the_truth() -> None:
    draft = _draft("The {{t:^NSEI}} closed at {{c1}}.", "It closed at {{c3}}.")
    text = render_text(draft, CLAIMS, {"c1", "c2"})
    assert "It closed at [unverified]." in text and "1,441.80" not in text
    assert "Every figure" not in text and "did not match their recomputation" in text
    no_figures = render_text(_draft("A quiet day.", "Nothing notable.", table=False), CLAIMS, set())
    assert "Every figure" not in no_figures and "recomput" not in no_figures


def test_html_for_pages_links_claims_and_email_uses_inline_styles() -> None:
    draft = _draft("The {{t:^NSEI}} fell {{c2}}.", "It rose {{c4}}.")
    page = render_html(draft, CLAIMS, {"c1", "c2", "c3", "c4"}, title="T")
    assert '<a class="claim verified" href="#claim-c2" data-claim="c2"' in page and ">0.64%</a>" in page
    assert 'title="^NSEI 1-day change as of 30 Sep 2025: -0.6410256410256387 (verified)"' in page
    assert 'class="brief-dateline stale" data-testid="dateline"' in page and "style=" not in page
    email = render_html(draft, CLAIMS, {"c1", "c2", "c3", "c4"}, title="T", email=True)
    assert "class=" not in email and 'style="' in email and 'href="#claim' not in email
    assert "24,363.30 pts" in email and "₹1,441.80" in email


def test_the_reviewer_edits_rendered_text_with_chips_that_cannot_be_broken() -> None:
    draft = _draft("On {{as_of}}, the {{t:^NSEI}} fell {{c2}}.", "It rose {{c4}} to {{c3}}.")
    markup = to_markup(draft, CLAIMS)
    assert markup == (
        "# Morning brief\nOn ⟦as_of|30 Sep 2025⟧, the ⟦t:^NSEI|NIFTY 50⟧ fell ⟦c2|0.64%⟧.\n\n"
        "## INFY.NS\nIt rose ⟦c4|1.50%⟧ to ⟦c3|₹1,441.80⟧."
    )
    edited = markup.replace("It rose", "Shares of the company rose")
    assert from_markup(edited, draft, CLAIMS).sections[0].narrative == "Shares of the company rose {{c4}} to {{c3}}."
    moved = markup.replace("It rose ⟦c4|1.50%⟧ to ⟦c3|₹1,441.80⟧.", "It closed at ⟦c3|₹1,441.80⟧, up ⟦c4|1.50%⟧.")
    assert from_markup(moved, draft, CLAIMS).sections[0].narrative == "It closed at {{c3}}, up {{c4}}."
    with pytest.raises(ValueError, match="cannot be edited"):
        from_markup(markup.replace("⟦c3|₹1,441.80⟧", "⟦c3|₹1,500.00⟧"), draft, CLAIMS)
    with pytest.raises(ValueError, match="broken"):
        from_markup(markup.replace("⟦c3|₹1,441.80⟧", "⟦c3 ₹1,441.80"), draft, CLAIMS)
    with pytest.raises(ValueError, match="bare numeral"):
        from_markup(markup.replace("It rose", "It rose 5% and"), draft, CLAIMS)
