"""The claim table and the deterministic verifier.

A brief never carries a figure in its prose (``briefs.contract``). Code mints claims ``c1..cN``
from tool outputs (one per (ticker, metric), never for a missing value), each with the unit its
metric fixes (a price in the instrument's currency, or in points for an index; ``%`` for the rest).
The writer may only *cite* them. The verifier recomputes every claim from the stored bars with
``portfolios.recompute`` and checks every reference, ticker, direction word and quoted headline;
only then does rendering (``briefs.render``) substitute the values — and only verified ones.

Pure functions over plain data: no Django models, so the graph and tests use them freely.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from briefs.contract import (
    NumeralError,
    assert_figure_free,
    assert_numeral_free,
    claim_references,
    directional_references,
    ticker_references,
)
from briefs.draft import BriefDraft, BriefSection, QuotedHeadline
from core.formatting import POINTS, metric_label, price_unit, shown_sign
from portfolios import recompute

__all__ = [
    "SIGNED_METRICS",
    "BriefDraft",
    "BriefSection",
    "Claim",
    "ClaimCheck",
    "NumeralError",
    "QuotedHeadline",
    "Verification",
    "assert_figure_free",
    "assert_numeral_free",
    "claim_unit",
    "mint_claims",
    "prose_problems",
    "references",
    "verify",
]  # fmt: skip

SIGNED_METRICS = frozenset({"change_1d_pct", "return_30d_pct"})  # a change: its sign is its direction
references = claim_references


def claim_unit(metric: str, currency: str = "", kind: str = "") -> str:
    """The unit a metric's value is in: ``%`` for percentages; for prices the instrument's
    currency code, or ``pts`` for an index level."""
    return price_unit(currency, kind) if recompute.METRIC_UNITS[metric] == "price" else "%"


class Claim(BaseModel):
    """One figure minted from a tool output. Its unit is fixed by its metric."""

    model_config = ConfigDict(frozen=True)

    id: str
    ticker: str
    metric: str  # the key, e.g. return_30d_pct
    label: str = ""  # what a person reads beside it, e.g. "30-day return" (filled from the key)
    value: float  # full precision, as the tool computed it
    unit: str  # currency code or "pts" for prices, "%" for percentages
    as_of: dt.date
    tool: str
    tool_call_id: str
    inputs: dict[str, Any] = Field(default_factory=dict)
    source: str = ""

    @model_validator(mode="before")
    @classmethod
    def _label(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("label") and data.get("metric"):
            data = {**data, "label": metric_label(str(data["metric"]))}
        return data

    @model_validator(mode="after")
    def _unit_fits_metric(self) -> Claim:
        kind = recompute.METRIC_UNITS.get(self.metric)
        if kind == "pct" and self.unit != "%":
            raise ValueError(f"{self.metric} is a percentage; its unit is %, not {self.unit!r}")
        if kind == "price" and (self.unit == "%" or not (self.unit == POINTS or self.unit.isalpha() or not self.unit)):
            raise ValueError(f"{self.metric} is a price; its unit is a currency code or pts, not {self.unit!r}")
        return self


# --- minting ----------------------------------------------------------------------------------
def mint_claims(prices: dict[str, dict[str, Any]], tickers: list[str]) -> list[Claim]:
    """Claims ``c1..cN`` from the data agent's ``compute_metrics`` outputs, in ``tickers`` order
    (the watchlist, then the benchmark), de-duplicated on (ticker, metric); a missing value is
    never minted."""
    claims: list[Claim] = []
    seen: set[tuple[str, str]] = set()
    for ticker in tickers:
        data = prices.get(ticker)
        if not data or "metrics" not in data:
            continue
        m = data["metrics"]
        for metric in recompute.METRIC_UNITS:
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
                    unit=claim_unit(metric, m.get("currency") or "", data.get("kind") or ""),
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


Bars = dict[str, tuple[list[dt.date], list[float]]]


def _check(claim: Claim, bars: Bars) -> ClaimCheck:
    def check(recomputed: float | None, verified: bool, reason: str) -> ClaimCheck:
        return ClaimCheck(id=claim.id, ticker=claim.ticker, metric=claim.metric, value=claim.value,
                          recomputed=recomputed, verified=verified, reason=reason)  # fmt: skip

    dates, closes = bars.get(claim.ticker, ([], []))
    if not closes:
        return check(None, False, "no stored bars to recompute from")
    try:
        again = recompute.recompute(claim.metric, dates, closes)
    except KeyError:
        return check(None, False, "not recomputable")
    ok = recompute.agrees(claim.value, again) and dates[-1] == claim.as_of
    return check(again, ok, "" if ok else "recomputed value differs")


def _reference_problems(draft: BriefDraft, by_id: dict[str, Claim], scope: list[str], benchmark: str) -> list[str]:
    """Unknown claims, another ticker's figure in a section, tickers outside the run, table cells."""
    problems: list[str] = []
    allowed = set(scope) | ({benchmark} if benchmark else set())
    for where, text in draft.prose():
        for ref in claim_references(text):
            claim = by_id.get(ref)
            if claim is None:
                problems.append(f"{ref} is not in the claim table")
            elif where not in {"title", "lead"} and claim.ticker not in {where, benchmark}:
                problems.append(f"{ref} is a {claim.ticker} figure cited in the {where} section")
        for ticker in ticker_references(text):
            if ticker not in allowed:
                problems.append(f"{ticker} is named in the {where} text but is not part of this run")
    for section in draft.sections:
        if section.ticker not in scope:
            problems.append(f"section for {section.ticker}, which is not on the watchlist")
    for row in draft.table:
        for ref in row.refs.values():
            claim = by_id.get(ref)
            if claim is None or claim.ticker != row.ticker:
                problems.append(f"the table row of {row.ticker} cites {ref}, which is not one of its claims")
    return problems


def _direction_problems(draft: BriefDraft, by_id: dict[str, Claim]) -> list[str]:
    """A direction word right before a figure must agree with it ("rose" + a fall is wrong)."""
    problems: list[str] = []
    for where, text in draft.prose():
        for ref, direction in directional_references(text):
            claim = by_id.get(ref)
            if claim is None:
                continue
            if claim.metric not in SIGNED_METRICS:
                problems.append(
                    f"{ref} ({claim.metric}) follows a direction word in the {where} text: it is not a change"
                )
            elif shown_sign(claim.value, 2) != direction:  # as rendered: 0.00% neither rose nor fell
                word = "rise" if direction > 0 else "fall"
                problems.append(f"the {where} text calls {ref} a {word}, but the figure does not say so")
    return problems


def prose_problems(draft: BriefDraft, claims: list[Claim], scope: list[str], benchmark: str = "") -> list[str]:
    """What is wrong with the prose's references and wording, before any recompute (the LLM writer's
    reply is refused on these)."""
    by_id = {c.id: c for c in claims}
    return _reference_problems(draft, by_id, scope, benchmark) + _direction_problems(draft, by_id)


def _headline_problems(draft: BriefDraft, news: dict[str, list[dict[str, Any]]]) -> list[str]:
    problems: list[str] = []
    quoted = [(s.ticker, h) for s in draft.sections for h in s.headlines]
    quoted += [(h.ticker, h) for h in draft.lead_headlines]
    for ticker, headline in quoted:
        if headline.text not in {item["title"] for item in news.get(ticker, [])}:
            problems.append(f"headline “{headline.text[:80]}” was not retrieved for {ticker or 'this brief'}")
    return problems


def verify(
    draft: BriefDraft,
    claims: list[Claim],
    bars: Bars,
    news: dict[str, list[dict[str, Any]]],
    scope: list[str],
    benchmark: str = "",
) -> Verification:
    """Recompute every claim from the stored bars; check references, tickers, direction words and
    quoted headlines.

    ``bars[ticker] = (dates, closes)`` oldest first, read from the stored bars; ``news[ticker]`` =
    the headlines the news agent retrieved for that ticker (the benchmark's: market news)."""
    by_id = {c.id: c for c in claims}
    checks = [_check(claim, bars) for claim in claims]
    problems = _reference_problems(draft, by_id, scope, benchmark)
    problems += _direction_problems(draft, by_id)
    problems += _headline_problems(draft, news)
    # Every minted claim must verify, cited or not: a figure that disagrees with its recomputation
    # means the data behind the whole brief disagree (an uncited one is no exception).
    return Verification(ok=not problems and all(c.verified for c in checks), checks=checks, problems=problems)
