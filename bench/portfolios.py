"""Portfolios: analyze_portfolio for 50 assets × 5 years of daily bars (warm), and a quote from the
cache, both through the shared tool registry in-process (median and p95 over repeated runs).

The 50-asset case reads the NIFTY-50 CSVs in ../shared/data/market/nse (2020-10-01..2025-09-30) and
is skipped, saying so, when that folder is absent; the quote case uses the shipped snapshot.
"""

from __future__ import annotations

import csv
import datetime as dt
import time
from pathlib import Path
from typing import Any

from bench._common import median_p95_columns

SHARED_NSE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "market" / "nse"


def _load_shared_nse() -> list[str]:
    """Store the 50 shared NSE series in the bar cache (as <SYMBOL>.NS); returns their symbols."""
    from django.utils import timezone

    from portfolios.models import Instrument, PriceBar

    symbols = []
    for path in sorted(SHARED_NSE.glob("*_2020-10-01_to_2025-09-30.csv")):
        symbol = path.name.split("_")[0] + ".NS"
        instrument, _ = Instrument.objects.get_or_create(symbol=symbol, defaults={"name": symbol, "currency": "INR"})
        if not instrument.last_bar_date:
            with path.open() as fh:
                rows = [
                    PriceBar(
                        instrument=instrument, date=dt.date.fromisoformat(r["timestamp"][:10]), close=float(r["close"])
                    )
                    for r in csv.DictReader(fh)
                ]
            PriceBar.objects.bulk_create(rows, ignore_conflicts=True, batch_size=2000)
            instrument.first_bar_date, instrument.last_bar_date = rows[0].date, rows[-1].date
            instrument.bars_version += 1
            instrument.source = "shared nse csv"
        # Mark fresh so the bench measures the warm cache path, not a provider refresh.
        instrument.bars_checked_at = timezone.now() + dt.timedelta(days=3650)
        instrument.save()
        symbols.append(symbol)
    return symbols


def _warm_samples_ms(user: Any, tool: str, args: dict[str, Any], calls: int) -> list[float]:
    """Milliseconds per ``tool`` call, ``calls`` times (each checked ok inside the timing, as before)."""
    from core.tools import call_tool

    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        assert call_tool(tool, args, user=user).ok
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def _quote_row(user: Any) -> dict[str, Any]:
    from core.tools import call_tool

    call_tool("get_stock_quote", {"ticker": "RELIANCE.NS"}, user=user)  # fill cache + memo
    samples = _warm_samples_ms(user, "get_stock_quote", {"ticker": "RELIANCE.NS"}, 300)
    return {
        "what": "get_stock_quote from the cache (warm, target ≤ 5 ms)",
        "n": len(samples),
        **median_p95_columns(samples),
    }


def _skipped_row() -> dict[str, Any]:
    return {
        "what": f"analyze_portfolio 50 assets: SKIPPED ({SHARED_NSE} absent)",
        "n": 0,
        "median_ms": "",
        "p95_ms": "",
    }


def _all_assets_rows(user: Any, symbols: list[str]) -> list[dict[str, Any]]:
    """Warm analyze_portfolio over every shared series, and its first (cold) call."""
    from core.tools import call_tool

    args = {"tickers": symbols, "benchmark": "^NSEI"}
    first = call_tool("analyze_portfolio", args, user=user)  # cold: loads 50 × ~1,240 bars into the memo
    assert first.ok, first.error
    out = first.output
    samples = _warm_samples_ms(user, "analyze_portfolio", args, 50)
    what = f"analyze_portfolio {len(symbols)} assets × {out.observations} days (warm, target ≤ 20 ms)"  # type: ignore[union-attr]
    return [
        {"what": what, "n": len(samples), **median_p95_columns(samples)},
        {"what": "  … same, first (cold) call", "n": 1, "median_ms": round(first.latency_ms, 2), "p95_ms": ""},
    ]


def _full_history_row(user: Any, symbols: list[str]) -> dict[str, Any]:
    """Warm analyze_portfolio over the series listed since the start of the window."""
    from core.tools import call_tool
    from portfolios.models import Instrument

    # Late listings (e.g. JIOFIN, 2023) shorten the common window; the full-history case drops them.
    full = list(
        Instrument.objects.filter(symbol__in=symbols, first_bar_date__lte=dt.date(2020, 10, 5)).values_list(
            "symbol", flat=True
        )
    )
    args = {"tickers": full, "benchmark": "^NSEI"}
    first = call_tool("analyze_portfolio", args, user=user)
    assert first.ok, first.error
    samples = _warm_samples_ms(user, "analyze_portfolio", args, 50)
    what = f"analyze_portfolio {len(full)} assets × {first.output.observations} days (warm, full 5 years)"  # type: ignore[union-attr]
    return {"what": what, "n": len(samples), **median_p95_columns(samples)}


def run() -> list[dict[str, Any]]:
    from django.core.management import call_command

    from core.services import user_ensure

    call_command("migrate", verbosity=0)
    user, _ = user_ensure(email="bench@alphadesk.local", roles=["analyst"], password=None)
    rows: list[dict[str, Any]] = [_quote_row(user)]
    if not SHARED_NSE.is_dir():
        rows.append(_skipped_row())
        return rows
    symbols = _load_shared_nse()
    rows += _all_assets_rows(user, symbols)
    rows.append(_full_history_row(user, symbols))
    return rows
