"""Offline provider over the real historical CSVs shipped in ``data/market`` (see its SOURCES.md).

Its as-of date for a ticker is that ticker's newest bar; it never pretends to be live.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from functools import cache
from pathlib import Path

from portfolios.providers.base import MarketDataProvider, no_data, unknown_ticker
from portfolios.schemas import Bar, FundamentalsData, InstrumentInfo, ProviderHistory


@cache
def _manifest(data_dir: Path) -> dict[str, dict[str, str]]:
    with (data_dir / "instruments.csv").open(newline="") as fh:
        return {row["symbol"]: row for row in csv.DictReader(fh)}


@cache
def _bars(path: Path) -> tuple[Bar, ...]:
    bars = []
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            volume = row.get("volume") or ""
            bars.append(
                Bar(
                    date=dt.date.fromisoformat(row["date"]),
                    open=float(row["open"]) if row.get("open") else None,
                    high=float(row["high"]) if row.get("high") else None,
                    low=float(row["low"]) if row.get("low") else None,
                    close=float(row["close"]),
                    volume=int(float(volume)) if volume else None,
                )
            )
    bars.sort(key=lambda bar: bar.date)
    return tuple(bars)


@cache
def _fundamentals(data_dir: Path) -> dict[str, dict[str, object]]:
    path = data_dir / "fundamentals.json"
    return json.loads(path.read_text()) if path.exists() else {}


class SnapshotProvider(MarketDataProvider):
    name = "snapshot"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)

    def _row(self, symbol: str) -> dict[str, str]:
        row = _manifest(self.data_dir).get(symbol)
        if row is None:
            raise unknown_ticker(symbol)
        return row

    def describe(self, symbol: str) -> InstrumentInfo:
        row = self._row(symbol)
        return InstrumentInfo(
            symbol=symbol,
            name=row["name"],
            exchange=row["exchange"],
            currency=row["currency"],
            sector=row["sector"],
            kind=row["kind"],
        )

    def history(self, symbol: str, *, start: dt.date | None = None) -> ProviderHistory:
        row = self._row(symbol)
        path = self.data_dir / "bars" / row["file"]
        if not path.exists():
            raise no_data(symbol)
        bars = [bar for bar in _bars(path) if start is None or bar.date >= start]
        return ProviderHistory(symbol=symbol, bars=bars, source=self.name)

    def fundamentals(self, symbol: str) -> FundamentalsData:
        record = _fundamentals(self.data_dir).get(symbol)
        if record is None:
            if symbol not in _manifest(self.data_dir):
                raise unknown_ticker(symbol)
            raise no_data(symbol, "fundamentals (the offline snapshot has fundamentals for AAPL and GOOG only)")
        market_time = record.get("market_time")
        as_of = dt.datetime.fromtimestamp(float(market_time), tz=dt.UTC).date() if market_time else None  # type: ignore[arg-type]
        fields = {k: v for k, v in record.items() if k in FundamentalsData.model_fields}
        source = f"{self.name} (Yahoo quoteSummary recorded 24 Feb 2025)"
        return FundamentalsData.model_validate({**fields, "symbol": symbol, "source": source, "as_of": as_of})
