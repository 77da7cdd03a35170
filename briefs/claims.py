"""The claim table, the numeral-free brief schema, rendering and the deterministic verifier.

A brief never carries a number in its prose. Code mints claims ``c1..cN`` from tool outputs
(one per (ticker, metric), never for a missing value); the writer may only *cite* them as
``{{cN}}``. The verifier recomputes every claim from the raw bars with ``portfolios.recompute`` and
checks that each quoted headline appears verbatim in the news retrieved for its ticker. Only
then does rendering substitute the values — and only verified ones.

Pure functions over plain data: no Django models, so the graph and tests use them freely.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from portfolios import recompute

REF_RE = re.compile(r"\{\{(c[1-9][0-9]*)\}\}")
# Any digit left once the references are removed is a bare numeral (ASCII and other scripts).
_DIGIT_RE = re.compile(r"\d")
MAX_NARRATIVE_CHARS = 2_000


class NumeralError(ValueError):
    pass


def assert_numeral_free(text: str) -> str:
    """``text`` unchanged, or ``NumeralError`` when a digit appears outside a ``{{cN}}`` reference."""
    bare = _DIGIT_RE.search(REF_RE.sub("", text))
    if bare:
        start = max(0, bare.start() - 15)
        snippet = REF_RE.sub("", text)[start : bare.end() + 15]
        raise NumeralError(
            f"bare numeral in “{snippet.strip()}”: every figure must be a {{{{cN}}}} reference to a claim"
        )
    return text


def references(text: str) -> list[str]:
    return REF_RE.findall(text)


class Claim(BaseModel):
    """One figure minted from a tool output."""

    model_config = ConfigDict(frozen=True)

    id: str
    ticker: str
    metric: str
    value: float
    unit: str  # currency code for prices, "%" for percentages
    as_of: dt.date
    tool: str
    tool_call_id: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    source: str = ""


class QuotedHeadline(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str = Field(max_length=300)
    link: str = ""
    publisher: str = ""


class BriefSection(BaseModel):
    ticker: str
    narrative: str = Field(max_length=MAX_NARRATIVE_CHARS)
    headlines: list[QuotedHeadline] = Field(default_factory=list, max_length=5)
    sentiment: str = "neutral"
    risk_events: list[str] = Field(default_factory=list)

    @field_validator("narrative")
    @classmethod
    def _narrative(cls, value: str) -> str:
        return assert_numeral_free(value)


class BriefDraft(BaseModel):
    """What the writer produces: prose with ``{{cN}}`` references only."""

    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(max_length=MAX_NARRATIVE_CHARS)
    sections: list[BriefSection]
    partial: bool = False

    @field_validator("title", "summary")
    @classmethod
    def _prose(cls, value: str) -> str:
        return assert_numeral_free(value)

    def all_references(self) -> list[str]:
        refs = references(self.title) + references(self.summary)
        for section in self.sections:
            refs += references(section.narrative)
        return refs


# --- minting ----------------------------------------------------------------------------------
def mint_claims(prices: dict[str, dict[str, Any]], tickers: list[str]) -> list[Claim]:
    """Claims ``c1..cN`` from the data agent's ``compute_metrics`` outputs, in watchlist order,
    de-duplicated on (ticker, metric); a missing value is never minted."""
    claims: list[Claim] = []
    seen: set[tuple[str, str]] = set()
    for ticker in tickers:
        data = prices.get(ticker)
        if not data or "metrics" not in data:
            continue
        m = data["metrics"]
        for metric, kind in recompute.METRIC_UNITS.items():
            value = m.get(metric)
            key = (ticker, metric)
            if value is None or key in seen:
                continue
            seen.add(key)
            claims.append(
                Claim(
                    id=f"c{len(claims) + 1}",
                    ticker=ticker,
                    metric=metric,
                    value=float(value),
                    unit=(m.get("currency") or "") if kind == "price" else "%",
                    as_of=dt.date.fromisoformat(str(m["as_of"])),
                    tool="compute_metrics",
                    tool_call_id=data["metrics_call_id"],
                    inputs={"ticker": ticker},
                    source=str(m.get("source", "")),
                )
            )
    return claims


# --- verification -----------------------------------------------------------------------------
class ClaimCheck(BaseModel):
    id: str
    ticker: str
    metric: str
    value: float
    recomputed: float | None
    verified: bool
    reason: str = ""


class Verification(BaseModel):
    ok: bool
    checks: list[ClaimCheck]
    problems: list[str]

    @property
    def mismatched(self) -> list[str]:
        return [c.id for c in self.checks if not c.verified]


def verify(
    draft: BriefDraft,
    claims: list[Claim],
    bars: dict[str, dict[str, list[Any]]],
    news: dict[str, list[dict[str, Any]]],
    scope: list[str],
) -> Verification:
    """Recompute every claim from the raw bars; check references, ticker scope and headlines.

    ``bars[ticker] = {"dates": [iso...], "closes": [...]}`` from ``get_price_history``;
    ``news[ticker]`` = the headlines the news agent retrieved for that ticker."""
    by_id = {c.id: c for c in claims}
    checks: list[ClaimCheck] = []
    for claim in claims:
        series = bars.get(claim.ticker)
        if not series or not series.get("closes"):
            checks.append(
                ClaimCheck(**_claim_fields(claim), recomputed=None, verified=False, reason="no raw bars to recompute")
            )
            continue
        dates = [dt.date.fromisoformat(d) for d in series["dates"]]
        try:
            again = recompute.recompute(claim.metric, dates, series["closes"])
        except KeyError:
            checks.append(
                ClaimCheck(**_claim_fields(claim), recomputed=None, verified=False, reason="not recomputable")
            )
            continue
        ok = recompute.agrees(claim.value, again) and dates[-1] == claim.as_of
        checks.append(
            ClaimCheck(
                **_claim_fields(claim),
                recomputed=again,
                verified=ok,
                reason="" if ok else "recomputed value differs",
            )
        )
    problems: list[str] = []
    for section in draft.sections:
        if section.ticker not in scope:
            problems.append(f"section for {section.ticker}, which is not on the watchlist")
        for ref in references(section.narrative):
            cited_claim = by_id.get(ref)
            if cited_claim is None:
                problems.append(f"{ref} is not in the claim table")
            elif cited_claim.ticker != section.ticker:
                problems.append(f"{ref} is a {cited_claim.ticker} figure cited in the {section.ticker} section")
        retrieved = {item["title"] for item in news.get(section.ticker, [])}
        for quoted in section.headlines:
            if quoted.text not in retrieved:
                problems.append(f"headline “{quoted.text[:80]}” was not retrieved for {section.ticker}")
    for ref in references(draft.title) + references(draft.summary):
        if ref not in by_id:
            problems.append(f"{ref} is not in the claim table")
    cited = set(draft.all_references())
    cited_bad = [c.id for c in checks if c.id in cited and not c.verified]
    return Verification(
        ok=not problems and not cited_bad and all(c.verified for c in checks), checks=checks, problems=problems
    )


def _claim_fields(claim: Claim) -> dict[str, Any]:
    return {"id": claim.id, "ticker": claim.ticker, "metric": claim.metric, "value": claim.value}


# --- rendering --------------------------------------------------------------------------------
METRIC_LABELS = {
    "last_close": "last close",
    "previous_close": "previous close",
    "change_1d_pct": "1-day change",
    "return_30d_pct": "30-day return",
    "volatility_annualised_pct": "annualised volatility",
    "max_drawdown_pct": "max drawdown",
    "high_52w": "52-week high",
    "low_52w": "52-week low",
}


def format_value(claim: Claim) -> str:
    if claim.unit == "%":
        sign = "+" if claim.value > 0 and claim.metric in {"change_1d_pct", "return_30d_pct"} else ""
        return f"{sign}{claim.value:,.2f}%"
    return f"{claim.value:,.2f} {claim.unit}".strip()


def news_line(section: BriefSection) -> str:
    """The news agent's reading, shown whichever writer wrote the prose (labels from fixed sets)."""
    line = f"News tone: {section.sentiment}."
    if section.risk_events:
        line += " Risk events flagged: " + ", ".join(section.risk_events) + "."
    return line


def render_text(draft: BriefDraft, claims: list[Claim], verified: set[str]) -> str:
    """Plain text with verified values substituted. An unverified reference renders as
    “[unverified]”: a wrong number cannot reach a reader even through a bug upstream."""
    by_id = {c.id: c for c in claims}

    def sub(match: re.Match[str]) -> str:
        ref = match.group(1)
        return format_value(by_id[ref]) if ref in verified and ref in by_id else "[unverified]"

    lines = [REF_RE.sub(sub, draft.title), "", REF_RE.sub(sub, draft.summary)]
    if draft.partial:
        lines += ["", "PARTIAL BRIEF: some data could not be retrieved (see the notes at the end)."]
    for section in draft.sections:
        lines += ["", section.ticker, "-" * len(section.ticker), REF_RE.sub(sub, section.narrative)]
        if section.headlines:
            lines.append(news_line(section))
        for h in section.headlines:
            lines.append(f"  • “{h.text}” — {h.publisher or 'news'}")
    return "\n".join(lines).strip() + "\n"


def render_html(draft: BriefDraft, claims: list[Claim], verified: set[str], *, link_claims: bool = True) -> str:
    """HTML with each verified figure marked and (on our pages) linked to its claim row."""
    by_id = {c.id: c for c in claims}

    def prose(text: str) -> str:
        out, last = [], 0
        for match in REF_RE.finditer(text):
            out.append(html.escape(text[last : match.start()]))
            ref = match.group(1)
            claim = by_id.get(ref)
            if claim is not None and ref in verified:
                title = f"{claim.ticker} {METRIC_LABELS.get(claim.metric, claim.metric)} as of {claim.as_of} (verified)"
                value = html.escape(format_value(claim))
                if link_claims:
                    out.append(
                        f'<a class="claim verified" href="#claim-{ref}" data-claim="{ref}" '
                        f'title="{html.escape(title)}">{value}</a>'
                    )
                else:
                    out.append(f'<strong title="{html.escape(title)}">{value}</strong>')
            else:
                out.append('<span class="claim unverified">[unverified]</span>')
            last = match.end()
        out.append(html.escape(text[last:]))
        return "".join(out)

    parts = [f"<h2>{prose(draft.title)}</h2>", f"<p>{prose(draft.summary)}</p>"]
    if draft.partial:
        parts.append('<p class="pill bad" data-testid="partial">Partial brief: some data could not be retrieved.</p>')
    for section in draft.sections:
        parts.append(f'<section data-ticker="{html.escape(section.ticker)}"><h3>{html.escape(section.ticker)}</h3>')
        parts.append(f"<p>{prose(section.narrative)}</p>")
        if section.headlines:
            parts.append(f'<p class="muted" data-testid="news-tone">{html.escape(news_line(section))}</p>')
            parts.append("<ul>")
            for h in section.headlines:
                text = html.escape(h.text)
                link = html.escape(h.link) if h.link.startswith(("https://", "http://")) else ""
                item = f'<a href="{link}" rel="noopener nofollow">{text}</a>' if link else text
                parts.append(f'<li>“{item}” <span class="muted">{html.escape(h.publisher)}</span></li>')
            parts.append("</ul>")
        parts.append("</section>")
    return "\n".join(parts)


# --- the reviewer's editable form: one text field ---------------------------------------------
def to_markup(draft: BriefDraft) -> str:
    """``# title`` / summary / ``## TICKER`` + narrative: what the reviewer edits."""
    lines = [f"# {draft.title}", draft.summary]
    for section in draft.sections:
        lines += ["", f"## {section.ticker}", section.narrative]
    return "\n".join(lines)


def from_markup(text: str, original: BriefDraft) -> BriefDraft:
    """Apply a reviewer's edited markup to ``original`` (headlines and tickers stay as retrieved).

    Raises ``ValueError`` with a message a reviewer understands."""
    title = ""
    summary: list[str] = []
    narratives: dict[str, list[str]] = {}
    current: list[str] = summary
    for raw in text.replace("\r\n", "\n").split("\n"):
        if raw.startswith("## "):
            ticker = raw[3:].strip()
            narratives[ticker] = []
            current = narratives[ticker]
        elif raw.startswith("# ") and not title:
            title = raw[2:].strip()
        else:
            current.append(raw)
    known = [s.ticker for s in original.sections]
    unknown = [t for t in narratives if t not in known]
    if unknown:
        raise ValueError(f"sections may not be added: {', '.join(unknown)} is not in this brief")
    sections = [
        s.model_copy(update={"narrative": "\n".join(narratives[s.ticker]).strip()}) if s.ticker in narratives else s
        for s in original.sections
    ]
    data = original.model_dump()
    data.update(
        title=title or original.title,
        summary="\n".join(summary).strip(),
        sections=[s.model_dump() for s in sections],
    )
    try:
        return BriefDraft.model_validate(data)
    except Exception as exc:  # pydantic ValidationError → the first message, readable
        errors = getattr(exc, "errors", None)
        if callable(errors):
            first = errors()[0]
            raise ValueError(str(first.get("msg", exc)).removeprefix("Value error, ")) from None
        raise ValueError(str(exc)) from None
