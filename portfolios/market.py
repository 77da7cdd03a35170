"""The shared market-data cache: the one way in to prices and fundamentals.

Bars live in Postgres (``PriceBar``, unique per instrument and date). A request first reads the
cache; only when the instrument was last checked more than ``MARKET_DATA_REFRESH_SECONDS`` ago is
the provider asked — for bars from the newest cached date on (incremental), under a row lock so
concurrent requests from N analysts produce one provider call, not N. If the provider fails and
bars are cached, the cached bars are served with their own (older) as-of date.

Arrays of a series are memoised per process keyed on ``Instrument.bars_version`` so a warm
analysis does one small query to validate, not a bar load.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from core.exceptions import ApplicationError
from portfolios import tickers
from portfolios.models import FundamentalsSnapshot, Instrument, PriceBar
from portfolios.providers import MarketDataError, get_provider
from portfolios.providers.base import no_data, unknown_ticker
from portfolios.schemas import Bar, FundamentalsData

logger = logging.getLogger(__name__)

FUNDAMENTALS_MAX_AGE = dt.timedelta(hours=24)


@dataclass(frozen=True)
class Series:
    """One instrument's cached adjusted closes, oldest first."""

    symbol: str
    name: str
    currency: str
    source: str
    dates: tuple[dt.date, ...]
    ordinals: np.ndarray  # date.toordinal() as int64, for fast alignment
    closes: np.ndarray
    instrument_id: int = 0
    version: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def as_of(self) -> dt.date:
        return self.dates[-1]


_series_memo: dict[int, Series] = {}
_memo_lock = threading.Lock()


def _needs_refresh(instrument: Instrument) -> bool:
    if instrument.bars_checked_at is None or instrument.last_bar_date is None:
        return True
    age = (timezone.now() - instrument.bars_checked_at).total_seconds()
    return age > settings.MARKET_DATA_REFRESH_SECONDS


def instrument_resolve(raw: object) -> Instrument:
    """The cached instrument a user-typed ticker means (``reliance`` → ``RELIANCE.NS``), creating it
    from the provider on first use. Raises ``invalid_input`` or ``unknown_ticker``."""
    symbol = tickers.normalise(raw)
    options = tickers.candidates(symbol)
    found = {i.symbol: i for i in Instrument.objects.filter(symbol__in=options)}
    for option in options:
        if option in found:
            return found[option]
    with transaction.atomic():
        # One resolver per symbol across processes: concurrent first requests for a new ticker
        # wait here and then find the row, instead of each asking the provider.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"instrument:{symbol}"])
        found = {i.symbol: i for i in Instrument.objects.filter(symbol__in=options)}
        for option in options:
            if option in found:
                return found[option]
        return _instrument_create(symbol, options)


def _instrument_create(symbol: str, options: list[str]) -> Instrument:
    provider = get_provider()
    for option in options:
        try:
            info = provider.describe(option)
        except MarketDataError as exc:
            if exc.code == "unknown_ticker":
                continue
            raise
        instrument, _ = Instrument.objects.get_or_create(
            symbol=option,
            defaults={
                "name": info.name,
                "exchange": info.exchange,
                "currency": info.currency,
                "sector": info.sector,
                "industry": info.industry,
                "kind": info.kind,
                "source": provider.name,
            },
        )
        return instrument
    tried = " or ".join(options)
    raise MarketDataError("unknown_ticker", f"No instrument called {symbol} is known (tried {tried}).", ticker=symbol)


def bars_refresh(instrument: Instrument, *, force: bool = False) -> Instrument:
    """Bring the cached bars up to date when they are stale (incremental, one fetch across processes)."""
    if not force and not _needs_refresh(instrument):
        return instrument
    provider = get_provider()
    with transaction.atomic():
        locked = Instrument.objects.select_for_update().get(pk=instrument.pk)
        if not force and not _needs_refresh(locked):
            return locked  # another request refreshed it while we waited for the lock
        # From the newest cached bar on: it may have been revised (an intraday close); older bars are kept.
        start = locked.last_bar_date
        try:
            history = provider.history(locked.symbol, start=start)
        except MarketDataError:
            if locked.last_bar_date is not None:
                logger.warning("refresh of %s failed; serving cached bars", locked.symbol, exc_info=True)
                return locked
            raise
        if not history.bars and locked.last_bar_date is None:
            raise no_data(locked.symbol)
        if history.bars:
            PriceBar.objects.bulk_create(
                [_bar_row(locked, bar) for bar in history.bars],
                update_conflicts=True,
                unique_fields=["instrument", "date"],
                update_fields=["open", "high", "low", "close", "volume"],
                batch_size=2000,
            )
            first, last = history.bars[0].date, history.bars[-1].date
            locked.first_bar_date = min(first, locked.first_bar_date or first)
            locked.last_bar_date = max(last, locked.last_bar_date or last)
            locked.bars_version = F("bars_version") + 1
        locked.source = history.source
        locked.bars_checked_at = timezone.now()
        locked.save(update_fields=["first_bar_date", "last_bar_date", "bars_version", "source", "bars_checked_at"])
        locked.refresh_from_db()
        return locked


def _bar_row(instrument: Instrument, bar: Bar) -> PriceBar:
    return PriceBar(
        instrument=instrument,
        date=bar.date,
        open=bar.open,
        high=bar.high,
        low=bar.low,
        close=bar.close,
        volume=bar.volume,
    )


def _load_series(instruments: list[Instrument]) -> dict[int, Series]:
    """Series for these (fresh) instruments: memo hits by version, one query for the misses."""
    out: dict[int, Series] = {}
    missing: list[Instrument] = []
    for inst in instruments:
        memo = _series_memo.get(inst.pk)
        if memo is not None and memo.version == inst.bars_version:
            out[inst.pk] = memo
        else:
            missing.append(inst)
    if missing:
        rows: dict[int, list[tuple[dt.date, float]]] = {inst.pk: [] for inst in missing}
        for inst_id, date, close in (
            PriceBar.objects.filter(instrument_id__in=list(rows))
            .order_by("instrument_id", "date")
            .values_list("instrument_id", "date", "close")
        ):
            rows[inst_id].append((date, close))
        for inst in missing:
            data = rows[inst.pk]
            if not data:
                continue
            dates = tuple(d for d, _ in data)
            series = Series(
                symbol=inst.symbol,
                name=inst.name,
                currency=inst.currency,
                source=inst.source,
                dates=dates,
                ordinals=np.fromiter((d.toordinal() for d in dates), dtype=np.int64, count=len(dates)),
                closes=np.fromiter((c for _, c in data), dtype=float, count=len(data)),
                instrument_id=inst.pk,
                version=inst.bars_version,
            )
            with _memo_lock:
                _series_memo[inst.pk] = series
            out[inst.pk] = series
    return out


def series_get(raw: object) -> Series:
    """The cached (refreshed when stale) adjusted-close series of one ticker."""
    result = series_many([raw])[0]
    if isinstance(result, ApplicationError):
        raise result
    return result


def series_many(raws: list[Any]) -> list[Series | ApplicationError]:
    """Series for many tickers at once, in order; a failing ticker yields its structured error
    instead of failing the others."""
    # Fast path: exact symbols already cached take one query together.
    normalised: list[str | ApplicationError] = []
    for raw in raws:
        try:
            normalised.append(tickers.normalise(raw))
        except ApplicationError as exc:
            normalised.append(exc)
    wanted = {opt for n in normalised if isinstance(n, str) for opt in tickers.candidates(n)}
    cached = {i.symbol: i for i in Instrument.objects.filter(symbol__in=wanted)}
    instruments: list[Instrument | ApplicationError] = []
    for n in normalised:
        if isinstance(n, ApplicationError):
            instruments.append(n)
            continue
        hit = next((cached[o] for o in tickers.candidates(n) if o in cached), None)
        try:
            inst = hit or instrument_resolve(n)
            instruments.append(bars_refresh(inst))
        except ApplicationError as exc:
            instruments.append(exc)
    loaded = _load_series([i for i in instruments if isinstance(i, Instrument)])
    out: list[Series | ApplicationError] = []
    for item in instruments:
        if isinstance(item, ApplicationError):
            out.append(item)
        elif item.pk in loaded:
            out.append(loaded[item.pk])
        else:
            out.append(no_data(item.symbol))
    return out


def bars_between(raw: object, start: dt.date | None, end: dt.date | None) -> tuple[Instrument, list[PriceBar]]:
    """Cached daily OHLCV bars of one ticker in ``[start, end]`` (refreshed when stale)."""
    instrument = bars_refresh(instrument_resolve(raw))
    qs = PriceBar.objects.filter(instrument=instrument)
    if start:
        qs = qs.filter(date__gte=start)
    if end:
        qs = qs.filter(date__lte=end)
    return instrument, list(qs.order_by("date"))


def fundamentals_get(raw: object) -> FundamentalsData:
    """Fundamentals from the cache when fetched in the last 24 h, else from the provider (stored)."""
    symbol = tickers.normalise(raw)
    provider = get_provider()
    try:
        instrument: Instrument | None = instrument_resolve(symbol)
    except MarketDataError as exc:
        # The snapshot knows some fundamentals (GOOG) without bars; ask the provider directly.
        if exc.code != "unknown_ticker":
            raise
        instrument = None
    if instrument is not None:
        snap = FundamentalsSnapshot.objects.filter(instrument=instrument).first()
        if snap is not None and timezone.now() - snap.fetched_at < FUNDAMENTALS_MAX_AGE:
            return FundamentalsData.model_validate({**snap.data, "fetched_at": snap.fetched_at})
    target = instrument.symbol if instrument is not None else symbol
    try:
        data = provider.fundamentals(target)
    except MarketDataError as exc:
        if instrument is None and exc.code in {"unknown_ticker", "no_data"}:
            raise unknown_ticker(symbol) from exc
        raise
    fetched_at = timezone.now()
    if instrument is not None:
        FundamentalsSnapshot.objects.create(
            instrument=instrument,
            fetched_at=fetched_at,
            source=data.source,
            as_of=data.as_of,
            data=data.model_dump(mode="json", exclude={"fetched_at"}),
        )
    return data.model_copy(update={"fetched_at": fetched_at})


def snapshot_load_all() -> int:
    """Load every instrument the provider lists into the cache (demo setup); returns bars stored."""
    from portfolios.providers.snapshot import _manifest

    provider = get_provider()
    if provider.name != "snapshot":
        return 0
    total = 0
    for symbol in _manifest(Path(settings.MARKET_DATA_DIR)):
        inst = bars_refresh(instrument_resolve(symbol), force=True)
        total += PriceBar.objects.filter(instrument=inst).count()
    return total
