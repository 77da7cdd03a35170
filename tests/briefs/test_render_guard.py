"""The rendering guard of a brief: only a verified figure is ever shown as a number — in plain text,
on the page and in the e-mail — with its unit and sign; everything else reads “[unverified]”.

Every expected string is written by hand from the house formatting rules (core/formatting.py's
docstring): U+2212 minus, two decimals, “+” on a positive change, ₹/$ for prices, “pts” for an index.
"""

from __future__ import annotations

import datetime as dt

from briefs.claims import Claim
from briefs.draft import BriefDraft, BriefSection, Dateline, TableRow
from briefs.render import render_text
from briefs.render_html import render_html
from briefs.renderings import email_bodies, render_brief

M = "\u2212"
AS_OF = dt.date(2025, 9, 30)
UNVERIFIED_PAGE = '<span class="claim unverified">[unverified]</span>'
UNVERIFIED_EMAIL = '<span style="color:#a40e26;font-weight:600;">[unverified]</span>'
FIGURE_EMAIL = '<span style="font-weight:600;white-space:nowrap;"'


def _claim(cid: str, ticker: str, metric: str, value: float, unit: str) -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1", inputs={"ticker": ticker}, source="snapshot")  # fmt: skip


CLAIMS = [
    _claim("c1", "^NSEI", "last_close", 24363.3, "pts"),
    _claim("c2", "^NSEI", "change_1d_pct", -0.6410256410256387, "%"),
    _claim("c3", "INFY.NS", "last_close", 1441.8, "INR"),
    _claim("c4", "INFY.NS", "change_1d_pct", 1.5, "%"),
    _claim("c5", "INFY.NS", "volatility_annualised_pct", 24.1, "%"),
    _claim("c6", "INFY.NS", "return_30d_pct", 3.456, "%"),
    _claim("c7", "AAPL", "last_close", 189.2, "USD"),
]
ALL = {c.id for c in CLAIMS}


def _draft(summary: str, narrative: str) -> BriefDraft:
    return BriefDraft(
        title="Morning brief",
        summary=summary,
        sections=[BriefSection(ticker="INFY.NS", narrative=narrative)],
        table=[TableRow(ticker="INFY.NS", refs={"last_close": "c3", "change_1d_pct": "c4", "return_30d_pct": "c6",
                                                "volatility_annualised_pct": "c5"}),
               TableRow(ticker="^NSEI", refs={"last_close": "c1", "change_1d_pct": "c2"})],
        dateline=Dateline(as_of=AS_OF, brief_date=AS_OF, source="snapshot"),
        benchmark="^NSEI",
        names={"INFY.NS": "Infosys Ltd.", "^NSEI": "NIFTY 50"},
    )  # fmt: skip


def _verification(verified: set[str]) -> dict[str, object]:
    return {"ok": verified == ALL, "checks": [{"id": c.id, "verified": c.id in verified} for c in CLAIMS]}


FAILED_DRAFT = _draft("The {{t:^NSEI}} closed at {{c1}}.", "It closed at {{c3}}, a move of {{c4}}; {{c9}} is unknown.")
ONLY_C1 = {"c1"}  # c3 and c4 failed their recomputation; c9 is in no claim table
# Every way the failed figures could be written: formatted, raw, or as the tooltip's full precision.
FAILED_FORMS = ("1,441.80", "1441.8", "1.50%", "1.5 ", "+1.5", "24.10%", "3.46%", "24.1 ", "3.456")


def test_a_failed_figure_is_never_a_number_in_plain_text() -> None:
    text = render_text(FAILED_DRAFT, CLAIMS, ONLY_C1)
    flat = " ".join(text.split())  # the text is wrapped at 72 columns
    assert "The NIFTY 50 closed at 24,363.30 pts." in flat  # the verified one is shown
    assert "It closed at [unverified], a move of [unverified]; [unverified] is unknown." in flat
    for form in FAILED_FORMS:
        assert form not in text, form
    table = text[text.index("At a glance") :].splitlines()
    assert table[2].split() == ["INFY.NS", "[unverified]", "[unverified]", "[unverified]", "[unverified]"]
    assert table[3].split() == ["^NSEI", "24,363.30", "pts", "[unverified]", "—", "—"]
    assert "Figures shown as [unverified] did not match their recomputation" in flat
    assert "Every figure" not in text


def test_a_failed_figure_is_never_a_number_on_the_page() -> None:
    page = render_html(FAILED_DRAFT, CLAIMS, ONLY_C1, title="T")
    assert f"It closed at {UNVERIFIED_PAGE}, a move of {UNVERIFIED_PAGE}; {UNVERIFIED_PAGE} is unknown." in page
    assert '<a class="claim verified" href="#claim-c1" data-claim="c1"' in page and ">24,363.30 pts</a>" in page
    assert 'href="#claim-c3"' not in page and 'href="#claim-c4"' not in page
    for form in FAILED_FORMS:
        assert form not in page, form
    unlinked = render_html(FAILED_DRAFT, CLAIMS, ONLY_C1, title="T", link_claims=False)
    assert '<strong class="claim verified" title="^NSEI last close as of 30 Sep 2025: 24363.3 (verified)">' in unlinked
    assert "24,363.30 pts</strong>" in unlinked and UNVERIFIED_PAGE in unlinked and "href=" not in unlinked


def test_a_failed_figure_is_never_a_number_in_the_email() -> None:
    text, html = email_bodies(FAILED_DRAFT, CLAIMS, _verification(ONLY_C1), title="Brief", approved_by="Rita")
    assert "It closed at [unverified], a move of [unverified]; [unverified] is unknown." in " ".join(text.split())
    assert text.rstrip().endswith("Approved by Rita. Data as of 30 Sep 2025.")
    assert f"It closed at {UNVERIFIED_EMAIL}, a move of {UNVERIFIED_EMAIL}" in html
    assert f'{FIGURE_EMAIL} title="^NSEI last close as of 30 Sep 2025: 24363.3 (verified)">24,363.30 pts</span>' in html
    for form in FAILED_FORMS:
        assert form not in text and form not in html, form
    assert "class=" not in html and "<!doctype html>" in html


def test_nothing_verified_shows_no_figure_anywhere() -> None:
    draft = _draft("The {{t:^NSEI}} fell {{c2}} to {{c1}}.", "It rose {{c4}} to {{c3}}.")
    rendered = render_brief(draft, CLAIMS, _verification(set()), "Mine")
    for body in (rendered.text, rendered.html):
        for form in ("24,363.30", "0.64%", "1,441.80", "1.50%"):
            assert form not in body, form
    assert rendered.text.count("[unverified]") == 4 + 6 + 1  # four in the prose, six table cells, the closing note
    assert rendered.title == "Morning brief: Mine — data as of 30 Sep 2025"


def test_a_verified_figure_has_its_unit_and_its_sign() -> None:
    narrative = (
        "It closed at {{c3}} after {{c4}} on the day and {{c6}} over the month; it rose {{c6}}. "
        "Its volatility is {{c5}}. The {{t:^NSEI}} ended at {{c1}} after {{c2}}; it fell {{c2}}. "
        "Apple ended at {{c7}}."
    )
    draft = _draft("A mixed session.", narrative)
    expected = (
        f"It closed at ₹1,441.80 after +1.50% on the day and +3.46% over the month; it rose 3.46%. "
        f"Its volatility is 24.10%. The NIFTY 50 ended at 24,363.30 pts after {M}0.64%; it fell 0.64%. "
        "Apple ended at $189.20."
    )
    text = render_text(draft, CLAIMS, ALL)
    assert " ".join(text.split()).count(expected) == 1
    table = text[text.index("At a glance") :].splitlines()
    assert table[1].split() == ["Ticker", "Last", "1-day", "30-day", "Volatility"]
    assert table[2].split() == ["INFY.NS", "₹1,441.80", "+1.50%", "+3.46%", "24.10%"]
    assert table[3].split() == ["^NSEI", "24,363.30", "pts", f"{M}0.64%", "—", "—"]
    page = render_html(draft, CLAIMS, ALL, title="T")
    for shown in ("₹1,441.80", "+1.50%", "+3.46%", "3.46%", "24.10%", "24,363.30 pts", f"{M}0.64%", "$189.20"):
        assert f">{shown}</a>" in page, shown
    assert '<td class="num up brief-col-day">+1.50%</td>' in page
    assert f'<td class="num down brief-col-day">{M}0.64%</td>' in page
    assert '<td class="num brief-col-vol">24.10%</td>' in page
    email = render_html(draft, CLAIMS, ALL, title="T", email=True)
    assert 'color:#1a7f37;">+1.50%</td>' in email and f'color:#cf222e;">{M}0.64%</td>' in email
    assert f'{FIGURE_EMAIL} title="INFY.NS 1-day change as of 30 Sep 2025: 1.5 (verified)">+1.50%</span>' in email
