"""The brief as HTML: on our pages (classes styled by static/css/app.css, figures linked to their
claim rows) and in emails (inline styles only, one column that reflows to a phone's width).

Every text from outside (headlines, names) is escaped here; pages additionally pass the result
through nh3 (``briefs.services``)."""

from __future__ import annotations

import html
from collections.abc import Callable

from briefs.claims import Claim
from briefs.draft import TABLE_METRICS, BriefDraft, QuotedHeadline
from briefs.render import (
    TABLE_HEADERS,
    UNVERIFIED,
    Figures,
    claim_tooltip,
    dateline_lines,
    news_line,
    substitute,
    table_cells,
    verified_sentence,
)
from core.templatetags.figures import sign_class

_E = html.escape
# role → inline style, for email clients (which ignore stylesheets); pages use the class names.
EMAIL_STYLES = {
    "title": "margin:0 0 6px;font-size:20px;line-height:1.3;color:#1b1f24;",
    "dateline": "margin:0 0 4px;font-size:14px;color:#1b1f24;font-weight:600;",
    "dateline stale": "margin:0 0 4px;font-size:14px;color:#8a4b00;font-weight:600;background:#fff4e0;"
    "padding:6px 8px;border-radius:4px;",
    "sources": "margin:0 0 14px;font-size:13px;color:#57606a;",
    "lead": "margin:0 0 10px;font-size:16px;line-height:1.5;color:#1b1f24;",
    "evidence": "margin:0 0 14px;padding-left:18px;font-size:14px;color:#1b1f24;",
    "partial": "margin:0 0 12px;font-size:14px;color:#a40e26;",
    "section": "margin:18px 0 0;",
    "section-title": "margin:0 0 4px;font-size:16px;color:#1b1f24;",
    "name": "color:#57606a;font-weight:normal;",
    "narrative": "margin:0 0 6px;font-size:15px;line-height:1.5;color:#1b1f24;",
    "tone": "margin:0 0 4px;font-size:13px;color:#57606a;",
    "headlines": "margin:0 0 6px;padding-left:18px;font-size:14px;color:#1b1f24;",
    "table-title": "margin:20px 0 6px;font-size:16px;color:#1b1f24;",
    "table": "border-collapse:collapse;width:100%;font-size:13px;",
    "th": "text-align:right;padding:4px 6px;border-bottom:1px solid #d0d7de;color:#57606a;font-weight:600;",
    "th-first": "text-align:left;padding:4px 6px;border-bottom:1px solid #d0d7de;color:#57606a;font-weight:600;",
    "td": "text-align:right;padding:4px 6px;border-bottom:1px solid #eaeef2;white-space:nowrap;",
    "td-first": "text-align:left;padding:4px 6px;border-bottom:1px solid #eaeef2;",
    "up": "color:#1a7f37;",
    "down": "color:#cf222e;",
    "verified-note": "margin:14px 0 0;font-size:13px;color:#57606a;",
    "figure": "font-weight:600;white-space:nowrap;",
    "unverified": "color:#a40e26;font-weight:600;",
}


class _Out:
    """Emits either class attributes (page) or inline styles (email) for a role."""

    def __init__(self, *, email: bool) -> None:
        self.email = email

    def attr(self, role: str, testid: str = "") -> str:
        test = f' data-testid="{testid}"' if testid and not self.email else ""
        if self.email:
            return f' style="{EMAIL_STYLES.get(role, "")}"'
        first, _, rest = role.partition(" ")
        return f' class="{f"brief-{first} {rest}".strip()}"{test}'


def _wrapper(out: _Out, figures: Figures, link_claims: bool) -> Callable[[str, str, str | None], str]:
    def wrap(kind: str, ref: str, shown: str | None) -> str:
        if kind == "ticker":
            return (
                _E(shown or ref) if out.email else f'<span class="ticker" title="{_E(ref)}">{_E(shown or ref)}</span>'
            )
        if kind == "date":
            return f"<time>{_E(shown or '')}</time>"
        claim = figures.claims.get(ref)
        if shown is None or claim is None:
            if out.email:
                return f'<span style="{EMAIL_STYLES["unverified"]}">{UNVERIFIED}</span>'
            return f'<span class="claim unverified">{UNVERIFIED}</span>'
        tip = _E(claim_tooltip(claim))
        if out.email:
            return f'<span style="{EMAIL_STYLES["figure"]}" title="{tip}">{_E(shown)}</span>'
        if link_claims:
            return f'<a class="claim verified" href="#claim-{ref}" data-claim="{ref}" title="{tip}">{_E(shown)}</a>'
        return f'<strong class="claim verified" title="{tip}">{_E(shown)}</strong>'

    return wrap


def _headline_items(headlines: list[QuotedHeadline], out: _Out) -> str:
    items = []
    for h in headlines:
        text = _E(h.text)
        link = _E(h.link) if h.link.startswith(("https://", "http://")) else ""
        quoted = f'<a href="{link}" rel="noopener nofollow">{text}</a>' if link else text
        publisher = f" <span{out.attr('tone')}>{_E(h.publisher)}</span>" if h.publisher else ""
        items.append(f"<li>“{quoted}”{publisher}</li>")
    return "".join(items)


def _head(draft: BriefDraft, title: str, out: _Out) -> list[str]:
    lines = dateline_lines(draft.dateline, draft.names)
    stale = bool(draft.dateline and draft.dateline.stale)
    parts = [f"<h2{out.attr('title')}>{_E(title)}</h2>"]
    parts.append(f"<p{out.attr('dateline stale' if stale else 'dateline', 'dateline')}>{_E(lines[0])}</p>")
    if len(lines) > 1:
        parts.append(f"<p{out.attr('sources')}>{_E(' '.join(lines[1:]))}</p>")
    return parts


_COLS = {"last_close": "last", "change_1d_pct": "day", "return_30d_pct": "month", "volatility_annualised_pct": "vol"}


def _col(metric: str, out: _Out) -> str:
    """A header cell's attributes: a column class on our pages (a narrow phone hides the least
    needed column), an inline style in emails."""
    return out.attr("th") if out.email else f' class="brief-th brief-col-{_COLS[metric]}"'


def _table(draft: BriefDraft, figures: Figures, out: _Out) -> list[str]:
    rows = table_cells(draft, figures)
    if not rows:
        return []
    head = f'<th{out.attr("th-first")} scope="col">Ticker</th>' + "".join(
        f'<th{_col(m, out)} scope="col">{TABLE_HEADERS[m]}</th>' for m in TABLE_METRICS
    )
    body = []
    for ticker, name, cells in rows:
        tds = []
        for metric, (text, signed) in zip(TABLE_METRICS, cells, strict=True):
            tone = sign_class(signed)  # the pages' colouring: none for a figure that reads 0.00%
            if out.email:
                attrs = f' style="{EMAIL_STYLES["td"]}{EMAIL_STYLES.get(tone, "")}"'
            else:
                attrs = f' class="{" ".join(c for c in ("num", tone, f"brief-col-{_COLS[metric]}") if c)}"'
            tds.append(f"<td{attrs}>{_E(text)}</td>")
        label = f'<span title="{_E(name)}">{_E(ticker)}</span>'
        body.append(f"<tr><td{out.attr('td-first')}>{label}</td>{''.join(tds)}</tr>")
    table = (
        f"<table{out.attr('table', 'brief-table')}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    wrapper = '<div class="table-scroll">' if not out.email else "<div>"
    return [f"<h3{out.attr('table-title')}>At a glance</h3>", f"{wrapper}{table}</div>"]


def render_html(
    draft: BriefDraft,
    claims: list[Claim],
    verified: set[str],
    *,
    title: str = "",
    link_claims: bool = True,
    email: bool = False,
) -> str:
    """The brief as an HTML fragment: classes for our pages, or inline styles for an email."""
    out = _Out(email=email)
    figures = Figures.of(draft, claims, verified)
    wrap = _wrapper(out, figures, link_claims)
    parts = _head(draft, title or draft.title, out)
    parts.append(f"<p{out.attr('lead', 'lead')}>{substitute(draft.summary, figures, wrap)}</p>")
    if draft.lead_headlines:
        parts.append(f"<ul{out.attr('evidence', 'lead-headlines')}>{_headline_items(draft.lead_headlines, out)}</ul>")
    if draft.partial:
        parts.append(f"<p{out.attr('partial', 'partial')}>Partial brief: some data could not be retrieved.</p>")
    for section in draft.sections:
        name = figures.name(section.ticker)
        parts.append(f'<section{out.attr("section")} data-ticker="{_E(section.ticker)}">')
        parts.append(
            f"<h3{out.attr('section-title')}>{_E(section.ticker)} <span{out.attr('name')}>{_E(name)}</span></h3>"
        )
        parts.append(f"<p{out.attr('narrative')}>{substitute(section.narrative, figures, wrap)}</p>")
        if section.headlines:
            parts.append(f"<p{out.attr('tone', 'news-tone')}>{_E(news_line(section))}</p>")
            parts.append(f"<ul{out.attr('headlines', 'headlines')}>{_headline_items(section.headlines, out)}</ul>")
        parts.append("</section>")
    parts += _table(draft, figures, out)
    closing = verified_sentence(draft, figures)
    if closing:
        parts.append(f"<p{out.attr('verified-note', 'verified-note')}>{_E(closing)}</p>")
    return "\n".join(parts)
