"""Provider selection: ``MARKET_DATA_PROVIDER`` = ``snapshot`` (default, offline) or ``yfinance``."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from portfolios.providers.base import MarketDataError, MarketDataProvider

__all__ = ["MarketDataError", "MarketDataProvider", "get_provider"]


@cache
def _build(name: str, data_dir: str, base_url: str, timeout: float, retries: int) -> MarketDataProvider:
    if name == "yfinance":
        # Imported here so yfinance (and curl_cffi) load only when the live provider is configured.
        from portfolios.providers.yfinance_provider import YFinanceProvider

        return YFinanceProvider(base_url=base_url, timeout=timeout, retries=retries)
    from pathlib import Path

    from portfolios.providers.snapshot import SnapshotProvider

    return SnapshotProvider(Path(data_dir))


def get_provider() -> MarketDataProvider:
    """The configured provider (one instance per process and configuration)."""
    return _build(
        settings.MARKET_DATA_PROVIDER,
        str(settings.MARKET_DATA_DIR),
        settings.YFINANCE_BASE_URL,
        settings.YFINANCE_TIMEOUT_SECONDS,
        settings.YFINANCE_RETRIES,
    )
