"""Rendering a verified brief for people: plain text (emails, diffs) and HTML (pages, emails).

Figures come only from verified claims, formatted by ``core.formatting`` with the unit their
metric fixes; an unverified reference renders as “[unverified]”, so a wrong number cannot reach a
reader even through a bug upstream. A signed figure cited after a direction word ("rose {{c3}}")
is shown as a magnitude (the word carries the sign; the verifier checked they agree).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from briefs.claims import SIGNED_METRICS, Claim
from briefs.contract import ANY_REF_RE, is_directed
from briefs.draft import TABLE_METRICS, BriefDraft, BriefSection, Dateline, QuotedHeadline
from core.formatting import format_date, format_metric, full_precision, metric_label, percent

UNVERIFIED = "[unverified]"
TABLE_HEADERS = {"last_close": "Last", "change_1d_pct": "1-day", "return_30d_pct": "30-day",
                 "volatility_annualised_pct": "Volatility"}  # fmt: skip
_NAME_SUFFIXES = re.compile(r"\s*(?:\(Class [A-Z]\)|Ltd\.?|Limited|Inc\.?|Corporation|Corp\.?|plc|PLC)\s*$")


def short_name(name: str, ticker: str) -> str:
    """``Reliance Industries Ltd.`` → ``Reliance Industries``; no name → the ticker."""
    out = (name or "").strip()
    for _ in range(2):
        out = _NAME_SUFFIXES.sub("", out).rstrip(" ,")
    return out or ticker


def claim_display(claim: Claim, *, magnitude: bool = False) -> str:
    """A claim's value with the unit its metric fixes (``magnitude``: a change without its sign)."""
    if magnitude and claim.metric in SIGNED_METRICS:
        return percent(abs(claim.value))
    return format_metric(claim.metric, claim.value, unit=claim.unit)


def claim_tooltip(claim: Claim) -> str:
    return (
        f"{claim.ticker} {metric_label(claim.metric)} as of {format_date(claim.as_of)}: "
        f"{full_precision(claim.value)} (verified)"
    )


@dataclass(frozen=True)
class Figures:
    """What a renderer needs to resolve references: the claims, which verified, the names."""

    claims: dict[str, Claim]
    verified: set[str]
    names: dict[str, str]
    as_of_text: str

    @classmethod
    def of(cls, draft: BriefDraft, claims: list[Claim], verified: set[str]) -> Figures:
        as_of = draft.dateline.as_of if draft.dateline and draft.dateline.as_of else None
        if as_of is None and claims:
            as_of = max(c.as_of for c in claims)
        return cls({c.id: c for c in claims}, set(verified), dict(draft.names), format_date(as_of))

    def name(self, ticker: str) -> str:
        return short_name(self.names.get(ticker, ""), ticker)

    def value(self, ref: str, *, magnitude: bool = False) -> str | None:
        claim = self.claims.get(ref)
        if claim is None or ref not in self.verified:
            return None
        return claim_display(claim, magnitude=magnitude)


def substitute(text: str, figures: Figures, wrap: Callable[[str, str, str | None], str] | None = None) -> str:
    """Prose with every reference resolved. ``wrap(kind, ref, shown)`` may mark up each one
    (HTML); literal text between references is passed through ``html.escape`` when it is given."""
    out: list[str] = []
    last = 0
    for match in ANY_REF_RE.finditer(text):
        out.append(html.escape(text[last : match.start()]) if wrap else text[last : match.start()])
        token = match.group(0)[2:-2]
        if token.startswith("c"):
            shown = figures.value(token, magnitude=is_directed(text, match.start()))
            kind = "claim"
        elif token.startswith("t:"):
            token, shown, kind = token[2:], figures.name(token[2:]), "ticker"
        else:
            shown, kind = figures.as_of_text, "date"
        out.append(wrap(kind, token, shown) if wrap else (shown if shown is not None else UNVERIFIED))
        last = match.end()
    out.append(html.escape(text[last:]) if wrap else text[last:])
    return "".join(out)


# --- the lines code writes around the prose ------------------------------------------------------
def dateline_lines(dateline: Dateline | None, names: dict[str, str] | None = None) -> list[str]:
    """The brief's first lines: the data as-of (and a stale warning), older series, the sources."""
    if dateline is None or dateline.as_of is None:
        return ["Data as of: no market data in this brief."]
    as_of = format_date(dateline.as_of)
    if dateline.stale:
        first = (
            f"Data as of {as_of} — stale: the newest bar is {dateline.sessions_behind} trading days older "
            f"than this brief ({format_date(dateline.brief_date)})."
        )
    else:
        first = f"Data as of {as_of}, the latest session."
    source = "shipped historical snapshot, not live" if dateline.source == "snapshot" else dateline.source
    lines = [first]
    if dateline.lagging:
        older = ", ".join(
            f"{short_name((names or {}).get(t, ''), t)} ({t}) as of {format_date(d)}"
            for t, d in dateline.lagging.items()
        )
        lines.append(f"Older data: {older}.")
    lines.append(f"Prices: {source or 'market data provider'}.")
    if dateline.news_as_of:
        lines.append(f"News: {dateline.news_source or 'RSS'}, as of {format_date(dateline.news_as_of)}.")
    elif dateline.news_source:
        lines.append(f"News: {dateline.news_source}.")
    return lines


def news_line(section: BriefSection) -> str:
    """The news agent's reading, shown whichever writer wrote the prose (labels from fixed sets)."""
    line = f"News tone: {section.sentiment}."
    if section.risk_events:
        line += " Risk events flagged: " + ", ".join(section.risk_events) + "."
    return line


def verified_sentence(draft: BriefDraft, figures: Figures) -> str:
    """Only when the brief shows figures: say whether every one of them verified."""
    cited = set(draft.all_references()) | set(draft.table_references())
    if not cited:
        return ""
    if cited <= figures.verified:
        return "Every figure in this brief was recomputed from the stored daily bars and verified."
    return f"Figures shown as {UNVERIFIED} did not match their recomputation from the stored bars."


def table_cells(draft: BriefDraft, figures: Figures) -> list[tuple[str, str, list[tuple[str, float | None]]]]:
    """``(ticker, name, [(text, value for colouring)])`` per table row, in table order."""
    rows = []
    for row in draft.table:
        cells: list[tuple[str, float | None]] = []
        for metric in TABLE_METRICS:
            ref = row.refs.get(metric)
            if ref is None:
                cells.append(("—", None))
                continue
            shown = figures.value(ref)
            claim = figures.claims.get(ref)
            signed = claim.value if claim is not None and metric in SIGNED_METRICS else None
            cells.append((shown if shown is not None else UNVERIFIED, signed))
        rows.append((row.ticker, figures.name(row.ticker), cells))
    return rows


# --- plain text -----------------------------------------------------------------------------------
def _fill(text: str) -> str:
    return "\n".join(textwrap.fill(p, width=72) for p in text.split("\n")) if text else ""


def _quote_lines(headlines: list[QuotedHeadline], bullet: str) -> list[str]:
    return [
        textwrap.fill(f"{bullet}“{h.text}” — {h.publisher or 'news'}", width=72, subsequent_indent="    ")
        for h in headlines
    ]


def _text_table(draft: BriefDraft, figures: Figures) -> list[str]:
    rows = table_cells(draft, figures)
    if not rows:
        return []
    header = ["Ticker", *(TABLE_HEADERS[m] for m in TABLE_METRICS)]
    body = [[ticker, *(text for text, _ in cells)] for ticker, _, cells in rows]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return ["At a glance", *(line(r).rstrip() for r in [header, *body])]


def render_text(draft: BriefDraft, claims: list[Claim], verified: set[str], *, title: str = "") -> str:
    """Plain text, wrapped at 72 columns (readable on a phone)."""
    figures = Figures.of(draft, claims, verified)
    lines = [title or substitute(draft.title, figures), *dateline_lines(draft.dateline, draft.names), ""]
    lines.append(_fill(substitute(draft.summary, figures)))
    lines += _quote_lines(draft.lead_headlines, "  ")
    if draft.partial:
        lines += ["", "PARTIAL BRIEF: some data could not be retrieved (see the notes in each section)."]
    for section in draft.sections:
        heading = f"{section.ticker} · {figures.name(section.ticker)}"
        lines += ["", heading, "-" * min(len(heading), 72), _fill(substitute(section.narrative, figures))]
        if section.headlines:
            lines.append(_fill(news_line(section)))
        lines += _quote_lines(section.headlines, "  • ")
    table = _text_table(draft, figures)
    if table:
        lines += ["", *table]
    closing = verified_sentence(draft, figures)
    if closing:
        lines += ["", _fill(closing)]
    return "\n".join(lines).strip() + "\n"
