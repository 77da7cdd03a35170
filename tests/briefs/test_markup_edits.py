"""The reviewer's edit of a brief (``briefs.markup.from_markup``): what may change and what may not.

Chips show the verified figure a reader will see; a reviewer may move them and rewrite the words
around them, never type or alter a figure, add a section, or leave a half chip behind."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from briefs.claims import Claim
from briefs.draft import BriefDraft, BriefSection, Dateline
from briefs.markup import from_markup, to_markup

AS_OF = dt.date(2025, 9, 30)


def _claim(cid: str, ticker: str, metric: str, value: float, unit: str) -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1", inputs={"ticker": ticker}, source="snapshot")  # fmt: skip


CLAIMS = [_claim("c3", "INFY.NS", "last_close", 1441.8, "INR"), _claim("c4", "INFY.NS", "change_1d_pct", 1.5, "%")]
DRAFT = BriefDraft(
    title="Morning brief",
    summary="On {{as_of}}, {{t:INFY.NS}} led.",
    sections=[
        BriefSection(ticker="INFY.NS", narrative="It rose {{c4}} to {{c3}}.", sentiment="positive"),
        BriefSection(ticker="TCS.NS", narrative="Quiet."),
    ],
    dateline=Dateline(as_of=AS_OF),
    names={"INFY.NS": "Infosys Ltd."},
)
MARKUP = (
    "# Morning brief\nOn ⟦as_of|30 Sep 2025⟧, ⟦t:INFY.NS|Infosys⟧ led.\n\n"
    "## INFY.NS\nIt rose ⟦c4|1.50%⟧ to ⟦c3|₹1,441.80⟧.\n\n## TCS.NS\nQuiet."
)


def test_the_markup_is_written_by_hand_readable() -> None:
    assert to_markup(DRAFT, CLAIMS) == MARKUP


def test_title_lead_and_narratives_are_taken_from_the_edit() -> None:
    edited = (
        "# Tuesday's brief\r\nOn ⟦as_of|30 Sep 2025⟧,\r\n⟦t:INFY.NS|Infosys⟧ led the way.\r\n\r\n"
        "## INFY.NS\n  Shares rose ⟦c4|1.50%⟧.\nThey closed at ⟦c3|₹1,441.80⟧.  \n\n## TCS.NS\nStill quiet.\n"
    )
    out = from_markup(edited, DRAFT, CLAIMS)
    assert out.title == "Tuesday's brief"
    assert out.summary == "On {{as_of}},\n{{t:INFY.NS}} led the way."
    assert [s.narrative for s in out.sections] == ["Shares rose {{c4}}.\nThey closed at {{c3}}.", "Still quiet."]
    assert out.sections[0].sentiment == "positive" and out.names == DRAFT.names  # the rest is kept


def test_what_the_edit_leaves_out_is_kept_or_emptied_as_written() -> None:
    out = from_markup("A new lead without figures.\n# Not a title: the first line was prose", DRAFT, CLAIMS)
    assert out.title == "Not a title: the first line was prose"
    assert out.summary == "A new lead without figures."
    assert [s.narrative for s in out.sections] == ["It rose {{c4}} to {{c3}}.", "Quiet."]  # untouched
    second = from_markup("# Alpha\n# Beta\nLead.", DRAFT, CLAIMS)
    assert (second.title, second.summary) == ("Alpha", "# Beta\nLead.")
    assert from_markup("Lead only.", DRAFT, CLAIMS).title == "Morning brief"


def test_a_moved_figure_may_gain_or_lose_its_sign_but_never_change() -> None:
    moved = MARKUP.replace("It rose ⟦c4|1.50%⟧ to ⟦c3|₹1,441.80⟧.", "It closed at ⟦c3|₹1,441.80⟧ after ⟦c4|+1.50%⟧.")
    assert from_markup(moved, DRAFT, CLAIMS).sections[0].narrative == "It closed at {{c3}} after {{c4}}."
    unsigned = MARKUP.replace("It rose ⟦c4|1.50%⟧", "After ⟦c4|1.50%⟧ it rose")
    assert from_markup(unsigned, DRAFT, CLAIMS).sections[0].narrative.startswith("After {{c4}} it rose")
    for forged, why in [
        ("⟦c4|\u22121.50%⟧", "the figure “1.50%” was changed to “−1.50%”"),
        ("⟦c4|1.5%⟧", "was changed to “1.5%”"),
        ("⟦c9|1.50%⟧", "“1.50%” (c9) is not a figure of this brief"),
        ("⟦x9|1.50%⟧", "is not a figure of this brief; figures cannot be typed"),
    ]:
        with pytest.raises(ValueError, match=re.escape(why)):
            from_markup(MARKUP.replace("⟦c4|1.50%⟧", forged), DRAFT, CLAIMS)
    with pytest.raises(ValueError, match="was changed to “Wipro”"):
        from_markup(MARKUP.replace("|Infosys⟧", "|Wipro⟧"), DRAFT, CLAIMS)
    with pytest.raises(ValueError, match="was changed to “1 Oct 2025”"):
        from_markup(MARKUP.replace("|30 Sep 2025⟧", "|1 Oct 2025⟧"), DRAFT, CLAIMS)


def test_sections_cannot_be_added_and_broken_chips_or_typed_figures_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^sections may not be added: WIPRO\.NS is not in this brief$"):
        from_markup(MARKUP + "\n\n## WIPRO.NS\nNew.", DRAFT, CLAIMS)
    with pytest.raises(ValueError, match="a figure chip was broken"):
        from_markup(MARKUP.replace("⟦c3|₹1,441.80⟧", "c3|₹1,441.80⟧"), DRAFT, CLAIMS)
    with pytest.raises(ValueError, match="bare numeral") as typed:
        from_markup(MARKUP.replace("Quiet.", "Up 5 today."), DRAFT, CLAIMS)
    assert not str(typed.value).startswith("Value error")
    with pytest.raises(ValueError, match=r"^String should have at most 200 characters$"):
        from_markup("# " + "Long " * 60 + "\nLead.", DRAFT, CLAIMS)
