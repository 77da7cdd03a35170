"""A brief rendered as HTML for our pages and for e-mail, compared with markup written by hand from
briefs/render_html.py's rules: ``brief-<role>`` classes and test ids on pages, inline styles in
e-mails, escaped outside text, only http(s) links, a tone on signed table cells (none for a change
that rounds to zero), and the ticker's name in place of ``{{t:…}}``."""

from __future__ import annotations

import datetime as dt

from briefs.claims import Claim
from briefs.draft import BriefDraft, BriefSection, Dateline, QuotedHeadline, TableRow
from briefs.render_html import render_html

AS_OF = dt.date(2025, 9, 30)
M = "\u2212"


def claim(cid: str, ticker: str, metric: str, value: float, unit: str = "%") -> Claim:
    return Claim(id=cid, ticker=ticker, metric=metric, value=value, unit=unit, as_of=AS_OF,
                 tool="compute_metrics", tool_call_id="t1")  # fmt: skip


CLAIMS = [
    claim("c1", "^NSEI", "last_close", 24363.3, "pts"),
    claim("c2", "^NSEI", "change_1d_pct", -0.6410256410256387),
    claim("c3", "INFY.NS", "last_close", 1441.8, "INR"),
    claim("c4", "INFY.NS", "change_1d_pct", 1.5),
    claim("c5", "TCS.NS", "change_1d_pct", 0.004),  # rounds to zero: no sign, no colour
    claim("c6", "TCS.NS", "return_30d_pct", 0.4),
]
ALL = {c.id for c in CLAIMS}
TIP2 = "^NSEI 1-day change as of 30 Sep 2025: -0.6410256410256387 (verified)"
TIP3 = "INFY.NS last close as of 30 Sep 2025: 1441.8 (verified)"
TIP4 = "INFY.NS 1-day change as of 30 Sep 2025: 1.5 (verified)"


def brief() -> BriefDraft:
    deal = QuotedHeadline(text="Deal", link="javascript:x()")  # not an http(s) link: shown as text
    section = BriefSection(ticker="INFY.NS", narrative="Infosys closed at {{c3}}, up {{c4}}.", sentiment="positive",
                           risk_events=["earnings"], headlines=[deal])  # fmt: skip
    lead = QuotedHeadline(text="Markets <slip>", link="https://example.test/a?b=1&c=2", publisher="Mint")
    return BriefDraft(
        title="Morning brief",
        summary="The {{t:^NSEI}} fell {{c2}} on {{as_of}}; R&D held.",
        lead_headlines=[lead],
        partial=True,
        sections=[section],
        table=[TableRow(ticker="INFY.NS", refs={"last_close": "c3", "change_1d_pct": "c4"}),
               TableRow(ticker="TCS.NS", refs={"change_1d_pct": "c5", "return_30d_pct": "c6"}),
               TableRow(ticker="^NSEI", refs={"last_close": "c1", "change_1d_pct": "c2"})],
        dateline=Dateline(as_of=AS_OF, brief_date=AS_OF, source="snapshot"),
        benchmark="^NSEI",
        names={"INFY.NS": "Infosys Ltd.", "^NSEI": "NIFTY 50", "TCS.NS": "Tata Consultancy Services Limited"},
    )  # fmt: skip


def _cell(metric: str, text: str, tone: str = "") -> str:
    return f'<td class="{" ".join(c for c in ("num", tone, f"brief-col-{metric}") if c)}">{text}</td>'


HEAD = (
    '<th class="brief-th-first" scope="col">Ticker</th><th class="brief-th brief-col-last" scope="col">Last</th>'
    '<th class="brief-th brief-col-day" scope="col">1-day</th><th class="brief-th brief-col-month" scope="col">'
    '30-day</th><th class="brief-th brief-col-vol" scope="col">Volatility</th>'
)
ROWS = (
    '<tr><td class="brief-td-first"><span title="Infosys">INFY.NS</span></td>'
    + _cell("last", "₹1,441.80") + _cell("day", "+1.50%", "up") + _cell("month", "—") + _cell("vol", "—") + "</tr>"
    '<tr><td class="brief-td-first"><span title="Tata Consultancy Services">TCS.NS</span></td>'
    + _cell("last", "—") + _cell("day", "0.00%") + _cell("month", "+0.40%", "up") + _cell("vol", "—") + "</tr>"
    '<tr><td class="brief-td-first"><span title="NIFTY 50">^NSEI</span></td>'
    + _cell("last", "24,363.30 pts") + _cell("day", f"{M}0.64%", "down") + _cell("month", "—") + _cell("vol", "—")
    + "</tr>"
)  # fmt: skip
PAGE = [
    '<h2 class="brief-title">Morning brief</h2>',
    '<p class="brief-dateline" data-testid="dateline">Data as of 30 Sep 2025, the latest session.</p>',
    '<p class="brief-sources">Prices: shipped historical snapshot, not live.</p>',
    '<p class="brief-lead" data-testid="lead">The <span class="ticker" title="^NSEI">NIFTY 50</span> fell '
    f'<a class="claim verified" href="#claim-c2" data-claim="c2" title="{TIP2}">0.64%</a> on '
    "<time>30 Sep 2025</time>; R&amp;D held.</p>",
    '<ul class="brief-evidence" data-testid="lead-headlines"><li>“<a href="https://example.test/a?b=1&amp;c=2" '
    'rel="noopener nofollow">Markets &lt;slip&gt;</a>” <span class="brief-tone">Mint</span></li></ul>',
    '<p class="brief-partial" data-testid="partial">Partial brief: some data could not be retrieved.</p>',
    '<section class="brief-section" data-ticker="INFY.NS">',
    '<h3 class="brief-section-title">INFY.NS <span class="brief-name">Infosys</span></h3>',
    f'<p class="brief-narrative">Infosys closed at <a class="claim verified" href="#claim-c3" data-claim="c3" '
    f'title="{TIP3}">₹1,441.80</a>, up <a class="claim verified" href="#claim-c4" data-claim="c4" '
    f'title="{TIP4}">1.50%</a>.</p>',
    '<p class="brief-tone" data-testid="news-tone">News tone: positive. Risk events flagged: earnings.</p>',
    '<ul class="brief-headlines" data-testid="headlines"><li>“Deal”</li></ul>',
    "</section>",
    '<h3 class="brief-table-title">At a glance</h3>',
    f'<div class="table-scroll"><table class="brief-table" data-testid="brief-table"><thead><tr>{HEAD}</tr></thead>'
    f"<tbody>{ROWS}</tbody></table></div>",
    '<p class="brief-verified-note" data-testid="verified-note">'
    "Every figure in this brief was recomputed from the stored daily bars and verified.</p>",
]


def test_a_whole_brief_on_the_page() -> None:
    assert render_html(brief(), CLAIMS, ALL).split("\n") == PAGE


def test_a_whole_brief_in_an_email_has_inline_styles_only() -> None:
    mail = render_html(brief(), CLAIMS, ALL, email=True)
    assert "class=" not in mail and "data-testid" not in mail
    assert mail.startswith(
        '<h2 style="margin:0 0 6px;font-size:20px;line-height:1.3;color:#1b1f24;">Morning brief</h2>\n'
        '<p style="margin:0 0 4px;font-size:14px;color:#1b1f24;font-weight:600;">'
        "Data as of 30 Sep 2025, the latest session.</p>\n"
        '<p style="margin:0 0 14px;font-size:13px;color:#57606a;">Prices: shipped historical snapshot, not live.</p>'
    )
    assert "The NIFTY 50 fell " in mail  # the ticker's name, as text
    assert f'<span style="font-weight:600;white-space:nowrap;" title="{TIP2}">0.64%</span> on <time>30 Sep' in mail
    assert '” <span style="margin:0 0 4px;font-size:13px;color:#57606a;">Mint</span></li>' in mail
    th = "text-align:right;padding:4px 6px;border-bottom:1px solid #d0d7de;color:#57606a;font-weight:600;"
    td = "text-align:right;padding:4px 6px;border-bottom:1px solid #eaeef2;white-space:nowrap;"
    assert f'<th style="{th}" scope="col">1-day</th>' in mail
    assert f'<td style="{td}color:#1a7f37;">+1.50%</td>' in mail and f'<td style="{td}">0.00%</td>' in mail
    assert f'<td style="{td}color:#cf222e;">{M}0.64%</td>' in mail
    assert '<h3 style="margin:20px 0 6px;font-size:16px;color:#1b1f24;">At a glance</h3>\n<div><table style=' in mail


def test_a_stale_dateline_is_marked_and_no_dateline_has_no_sources_line() -> None:
    dateline = Dateline(as_of=AS_OF, brief_date=dt.date(2025, 10, 3), sessions_behind=3, stale=True,
                        news_source="Mint RSS", lagging={"TCS.NS": dt.date(2025, 9, 29)})  # fmt: skip
    stale = brief().model_copy(update={"dateline": dateline})
    lines = render_html(stale, CLAIMS, ALL).split("\n")
    assert lines[1] == (
        '<p class="brief-dateline stale" data-testid="dateline">Data as of 30 Sep 2025 — stale: the newest bar is 3 '
        "trading days older than this brief (3 Oct 2025).</p>"
    )
    assert lines[2] == (
        '<p class="brief-sources">Older data: Tata Consultancy Services (TCS.NS) as of 29 Sep 2025. '
        "Prices: market data provider. News: Mint RSS.</p>"
    )
    nothing = brief().model_copy(update={"dateline": None})
    lines = render_html(nothing, CLAIMS, ALL).split("\n")
    assert lines[1:3] == [
        '<p class="brief-dateline" data-testid="dateline">Data as of: no market data in this brief.</p>',
        '<p class="brief-lead" data-testid="lead">The <span class="ticker" title="^NSEI">NIFTY 50</span> fell '
        f'<a class="claim verified" href="#claim-c2" data-claim="c2" title="{TIP2}">0.64%</a> on '
        "<time>30 Sep 2025</time>; R&amp;D held.</p>",
    ]


def test_each_lead_headline_is_an_item_and_plain_http_links_are_kept() -> None:
    two = [QuotedHeadline(text="One", link="http://example.test/1"), QuotedHeadline(text="Two", publisher="ET")]
    lines = render_html(brief().model_copy(update={"lead_headlines": two}), CLAIMS, ALL).split("\n")
    assert lines[4] == (
        '<ul class="brief-evidence" data-testid="lead-headlines"><li>“<a href="http://example.test/1" '
        'rel="noopener nofollow">One</a>”</li><li>“Two” <span class="brief-tone">ET</span></li></ul>'
    )
    section = brief().sections[0].model_copy(update={"headlines": [QuotedHeadline(text="Deal", publisher="Mint")]})
    lines = render_html(brief().model_copy(update={"sections": [section]}), CLAIMS, ALL).split("\n")
    assert (
        '<ul class="brief-headlines" data-testid="headlines"><li>“Deal” <span class="brief-tone">Mint</span></li></ul>'
        in lines
    )


def test_text_before_a_reference_is_escaped_too() -> None:
    lines = render_html(brief().model_copy(update={"summary": "A&B <{{t:^NSEI}}>"}), CLAIMS, ALL).split("\n")
    assert lines[3] == (
        '<p class="brief-lead" data-testid="lead">A&amp;B &lt;'
        '<span class="ticker" title="^NSEI">NIFTY 50</span>&gt;</p>'
    )
