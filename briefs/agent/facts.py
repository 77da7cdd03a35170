"""What the deterministic writer knows about each ticker, read from its claims and its news.

The writer *reads* claim values to choose words (rose / fell, a new yearly high, an unusually large
move, which names matter most) and cites the claims themselves for every figure. Nothing here is
shown to a reader; it only decides the wording and the order.
"""

from __future__ import annotations

import datetime as dt
import math
import zlib
from dataclasses import dataclass, field
from typing import Any

from briefs.claims import Claim

FLAT_PCT = 0.05  # a day's change below this (in %) is "little changed"
UNUSUAL_MOVE_SIGMAS = 2.0  # |1-day change| above this many daily standard deviations is unusual
NEAR_EXTREME_PCT = 2.0  # a close within this of its 52-week high/low is "close to" it
NOTABLE_MONTH_PCT = 5.0  # a 30-day return at least this large is worth a sentence
TRADING_DAYS = 252


@dataclass
class Facts:
    ticker: str
    name: str = ""
    kind: str = "equity"
    refs: dict[str, str] = field(default_factory=dict)  # metric → claim id
    values: dict[str, float] = field(default_factory=dict)  # metric → value (to choose words only)
    news: dict[str, Any] | None = None  # the news agent's entry (None: not retrieved)
    benchmark_change: float | None = None
    as_of: dt.date | None = None  # the newest bar behind this ticker's claims
    current: bool = True  # its data is as new as the brief's (else its "day" is an older session)

    def ref(self, metric: str) -> str:
        return "{{" + self.refs[metric] + "}}"

    def has(self, *metrics: str) -> bool:
        return all(m in self.refs for m in metrics)

    @property
    def change(self) -> float | None:
        return self.values.get("change_1d_pct")

    @property
    def relative(self) -> float | None:
        """The day's change against the benchmark's, in percentage points (words only)."""
        if self.change is None or self.benchmark_change is None:
            return None
        return self.change - self.benchmark_change

    @property
    def sigmas(self) -> float:
        """|1-day change| in daily standard deviations implied by the annualised volatility."""
        vol = self.values.get("volatility_annualised_pct")
        if self.change is None or not vol:
            return 0.0
        return abs(self.change) / (vol / math.sqrt(TRADING_DAYS))

    @property
    def unusual(self) -> bool:
        return self.sigmas >= UNUSUAL_MOVE_SIGMAS and self.has("volatility_annualised_pct")

    def _gap(self, extreme: str) -> float | None:
        last, level = self.values.get("last_close"), self.values.get(extreme)
        if last is None or not level:
            return None
        return abs(last / level - 1.0) * 100.0

    @property
    def at_high(self) -> bool:
        gap = self._gap("high_52w")
        return gap is not None and gap < 1e-9

    @property
    def at_low(self) -> bool:
        gap = self._gap("low_52w")
        return gap is not None and gap < 1e-9

    @property
    def near_high(self) -> bool:
        gap = self._gap("high_52w")
        return gap is not None and not self.at_high and gap <= NEAR_EXTREME_PCT

    @property
    def near_low(self) -> bool:
        gap = self._gap("low_52w")
        return gap is not None and not self.at_low and gap <= NEAR_EXTREME_PCT

    @property
    def month_notable(self) -> bool:
        r30 = self.values.get("return_30d_pct")
        return r30 is not None and abs(r30) >= NOTABLE_MONTH_PCT

    @property
    def risk_events(self) -> list[str]:
        return list((self.news or {}).get("risk_events", []))

    @property
    def missing(self) -> bool:
        return not self.refs

    def importance(self) -> float:
        """How much this ticker matters today: unusual moves, extremes, risk news, a big month."""
        if self.missing:
            return -1.0
        score = min(self.sigmas, 5.0)
        score += 2.0 if (self.at_high or self.at_low) else 1.0 if (self.near_high or self.near_low) else 0.0
        score += 1.5 if self.risk_events else 0.0
        score += min(abs(self.values.get("return_30d_pct") or 0.0) / 10.0, 1.5)
        score += min(abs(self.relative or 0.0) / 2.0, 1.0)
        return score

    def variant(self, slot: str, count: int) -> int:
        """A stable choice among ``count`` wordings, different per ticker and slot (not random)."""
        return zlib.crc32(f"{self.ticker}:{slot}".encode()) % count


def facts_for(
    tickers: list[str],
    claims: list[Claim],
    prices: dict[str, Any],
    sentiment: dict[str, Any],
    benchmark: str,
) -> dict[str, Facts]:
    """Facts for each ticker of the run and for the benchmark. A ticker whose newest bar is older
    than the brief's is not ``current``: its day is not compared with the others'."""
    out: dict[str, Facts] = {}
    latest = max((c.as_of for c in claims), default=None)
    bench_claims = [c for c in claims if c.ticker == benchmark]
    bench_current = bool(bench_claims) and bench_claims[0].as_of == latest
    bench_change = next((c.value for c in bench_claims if c.metric == "change_1d_pct"), None) if bench_current else None
    for ticker in dict.fromkeys([*tickers, *([benchmark] if benchmark else [])]):
        data = prices.get(ticker) or {}
        facts = Facts(
            ticker=ticker,
            name=str(data.get("name") or ""),
            kind=str(data.get("kind") or "equity"),
            news=sentiment.get(ticker),
            benchmark_change=bench_change if ticker != benchmark else None,
        )
        for claim in claims:
            if claim.ticker == ticker:
                facts.refs[claim.metric] = claim.id
                facts.values[claim.metric] = claim.value
                facts.as_of = claim.as_of
        facts.current = facts.as_of is None or facts.as_of == latest
        if not facts.current:
            facts.benchmark_change = None
        out[ticker] = facts
    return out
