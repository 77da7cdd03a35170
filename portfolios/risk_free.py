"""The annual risk-free rate behind Sharpe and Sortino: set on the portfolio, else the default for
the currency most of its weight is in (``MARKET_RISK_FREE_RATES`` in settings; sources in docs/portfolios.md),
else ``MARKET_RISK_FREE_RATE``. The portfolio tool and the chat verifier both resolve it here, each
from its own reading of the holdings (the verifier never takes the rate from the tool's output)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.conf import settings


def default_rate(currency: str) -> float:
    rates: dict[str, float] = settings.MARKET_RISK_FREE_RATES
    return float(rates.get((currency or "").upper(), settings.MARKET_RISK_FREE_RATE))


def main_currency(weighted: Iterable[tuple[str, float]]) -> str:
    """The currency holding the largest total weight (ties: alphabetical), ``""`` for none."""
    totals: dict[str, float] = defaultdict(float)
    for currency, weight in weighted:
        totals[(currency or "").upper()] += weight
    if not totals:
        return ""
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))[0][0]


def resolve(*, currency: str, override: float | None) -> tuple[float, str]:
    """``(rate, where it came from)`` — the words the portfolio page shows."""
    if override is not None:
        return float(override), "set on this portfolio"
    label = currency or "other currencies"
    return default_rate(currency), f"default for {label}"
