"""Chips in the reviewer's markup (briefs/markup.py) at their edges, written by hand: a reference
to no claim, a ticker without a name, chips in the title, and the exact message for a typed chip."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from briefs.claims import Claim
from briefs.draft import BriefDraft, BriefSection, Dateline
from briefs.markup import from_markup, to_markup

AS_OF = dt.date(2025, 9, 30)
CLAIMS = [Claim(id="c3", ticker="INFY.NS", metric="last_close", value=1441.8, unit="INR", as_of=AS_OF,
                tool="compute_metrics", tool_call_id="t1")]  # fmt: skip
DRAFT = BriefDraft(
    title="{{t:INFY.NS}} and {{t:TCS.NS}}",
    summary="{{t:INFY.NS}} closed at {{c3}}; {{c9}} is not a claim.",
    sections=[BriefSection(ticker="INFY.NS", narrative="Quiet.")],
    dateline=Dateline(as_of=AS_OF),
    names={"INFY.NS": "Infosys Ltd."},
)
MARKUP = (
    "# ⟦t:INFY.NS|Infosys⟧ and ⟦t:TCS.NS|TCS.NS⟧\n"
    "⟦t:INFY.NS|Infosys⟧ closed at ⟦c3|₹1,441.80⟧; ⟦c9|unknown figure⟧ is not a claim.\n\n## INFY.NS\nQuiet."
)


def test_chips_for_the_title_an_unnamed_ticker_and_an_unknown_reference() -> None:
    assert to_markup(DRAFT, CLAIMS) == MARKUP


def test_an_unnamed_ticker_chip_reads_back() -> None:
    ok = "# ⟦t:TCS.NS|TCS.NS⟧ brief\nLead ⟦c3|₹1,441.80⟧.\n\n## INFY.NS\nQuiet."
    out = from_markup(ok, DRAFT, CLAIMS)
    assert (out.title, out.summary) == ("{{t:TCS.NS}} brief", "Lead {{c3}}.")


def test_a_typed_chip_is_quoted_whole_in_the_refusal() -> None:
    with pytest.raises(
        ValueError, match=re.escape("“⟦x9|1.50%⟧” is not a figure of this brief; figures cannot be typed")
    ):
        from_markup("Lead ⟦x9|1.50%⟧.", DRAFT, CLAIMS)


def test_every_added_section_is_named() -> None:
    with pytest.raises(ValueError, match=r"^sections may not be added: WIPRO\.NS, TCS\.NS is not in this brief$"):
        from_markup("Lead.\n\n## WIPRO.NS\nNew.\n\n## TCS.NS\nAlso new.", DRAFT, CLAIMS)


def test_a_broken_chip_is_refused_with_what_to_do() -> None:
    message = "a figure chip was broken (a ⟦ or ⟧ is left over); restore it or remove it whole"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        from_markup("Lead c3|₹1,441.80⟧.", DRAFT, CLAIMS)
