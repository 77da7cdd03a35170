"""Ticker syntax: NSE (``.NS``), BSE (``.BO``), US (bare) and indices (``^NSEI``).

Case and surrounding whitespace are forgiven; anything else that does not look like a ticker is
rejected with a message a person understands. A bare symbol resolves to the configured default
exchange first (``MARKET_DEFAULT_EXCHANGE``: ``NS``, ``BO`` or ``US``), then to the bare (US) symbol.
"""

from __future__ import annotations

import re

from django.conf import settings

from core.exceptions import ApplicationError

_TICKER_RE = re.compile(r"^(\^[A-Z0-9][A-Z0-9.\-]{0,14}|[A-Z0-9][A-Z0-9&\-]{0,19}(\.(NS|BO))?)$")
EXCHANGE_SUFFIXES = {"NS": ".NS", "BO": ".BO", "US": ""}


class InvalidTicker(ApplicationError):
    def __init__(self, raw: object, reason: str) -> None:
        super().__init__("invalid_input", reason, ticker=str(raw)[:40])


def normalise(raw: object) -> str:
    """``" reliance.ns "`` → ``"RELIANCE.NS"``; raises :class:`InvalidTicker` for garbage."""
    if not isinstance(raw, str):
        raise InvalidTicker(raw, "A ticker must be text such as RELIANCE.NS, INFY, AAPL or ^NSEI.")
    symbol = "".join(raw.split()).upper()
    if not symbol:
        raise InvalidTicker(raw, "The ticker is empty.")
    if len(symbol) > 24:
        raise InvalidTicker(raw, f"{raw[:30]!r} is too long to be a ticker.")
    if not _TICKER_RE.match(symbol):
        raise InvalidTicker(
            raw,
            f"{raw.strip()[:30]!r} is not a ticker we support: use NSE (RELIANCE.NS), BSE (500325.BO), "
            "US (AAPL) or an index (^NSEI).",
        )
    return symbol


def candidates(symbol: str) -> list[str]:
    """The symbols a normalised ticker may mean, most likely first."""
    if symbol.startswith("^") or symbol.endswith((".NS", ".BO")):
        return [symbol]
    suffix = EXCHANGE_SUFFIXES.get(settings.MARKET_DEFAULT_EXCHANGE, ".NS")
    return [symbol + suffix, symbol] if suffix else [symbol]
