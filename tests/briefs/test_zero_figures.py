"""A change that rounds to zero, through the whole brief: the renderer shows it without a sign
(``0.00%``), the table gives it no colour, the verifier lets no direction word ("rose", "fell")
stand before it, and the tool maths and the independent recompute (which share no code) agree on it
and render it the same way. Each rule against values and strings written by hand."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pytest

from briefs.claims import Claim, prose_problems
from briefs.draft import BriefDraft, BriefSection, Dateline, TableRow
from briefs.render import claim_display
from briefs.render_html import render_html
from core.formatting import format_metric
from portfolios import metrics, recompute

AS_OF = dt.date(2025, 9, 30)
M = "\u2212"


def _claim(value: float) -> Claim:
    return Claim(id="c1", ticker="INFY.NS", metric="change_1d_pct", value=value, unit="%", as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1")  # fmt: skip


def _draft(narrative: str) -> BriefDraft:
    return BriefDraft(
        title="Brief",
        summary="Calm.",
        sections=[BriefSection(ticker="INFY.NS", narrative=narrative)],
        table=[TableRow(ticker="INFY.NS", refs={"change_1d_pct": "c1"})],
        dateline=Dateline(as_of=AS_OF, brief_date=AS_OF, source="snapshot"),
    )


def _day_cell_class(value: float) -> str:
    page = render_html(_draft("Steady."), [_claim(value)], {"c1"})
    found = re.search(r'<td class="([^"]*brief-col-day[^"]*)">', page)
    assert found is not None, page
    return " ".join(c for c in found.group(1).split() if c in {"up", "down"})


def _word_accepted(word: str, value: float) -> bool:
    return prose_problems(_draft(f"Infosys {word} {{{{c1}}}}."), [_claim(value)], ["INFY.NS"]) == []


@pytest.mark.parametrize(
    ("value", "text", "tone", "rose", "fell"),
    [
        (-0.004, "0.00%", "", False, False),
        (0.004, "0.00%", "", False, False),
        (-0.0049, "0.00%", "", False, False),
        (1e-12, "0.00%", "", False, False),
        (-1e-12, "0.00%", "", False, False),
        (-0.0, "0.00%", "", False, False),
        (0.006, "+0.01%", "up", True, False),
        (-0.006, f"{M}0.01%", "down", False, True),
    ],
)
def test_renderer_table_and_verifier_agree_on_a_change_near_zero(
    value: float, text: str, tone: str, rose: bool, fell: bool
) -> None:
    assert claim_display(_claim(value)) == text
    assert _day_cell_class(value) == tone
    assert (_word_accepted("rose", value), _word_accepted("fell", value)) == (rose, fell)


@pytest.mark.parametrize(
    ("closes", "text"),
    [
        ([100.0, 99.9999], "0.00%"),  # −0.0001 %
        ([100.0, 100.000001], "0.00%"),  # +0.000001 %
        ([3.0, 2.99999], "0.00%"),  # −0.00033 %
        ([100.0, 99.99], f"{M}0.01%"),
    ],
)
def test_the_tool_maths_and_the_recompute_render_a_near_zero_change_alike(closes: list[float], text: str) -> None:
    dates = [dt.date(2025, 9, 29), AS_OF]
    tool = metrics.ticker_metrics(dates, np.asarray(closes))["change_1d_pct"]
    assert isinstance(tool, float)
    ours = recompute.change_1d_pct(dates, closes)
    assert recompute.agrees(tool, ours)
    assert format_metric("change_1d_pct", tool) == format_metric("change_1d_pct", ours) == text
