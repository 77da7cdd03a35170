"""What the words around a quoted figure say of it: its month, its day (research/agent/verify/relevance.py
checks them against the period asked)."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any

from research.agent.question.periods import MONTH_AFTER_FIGURE, month_number
from research.agent.verify.quotes import places_of
from research.packs.dates import DATE_RE, first_date


def around_figure(claim: dict[str, Any], quote: str) -> tuple[str, str]:
    """The quote's text before and after the claim's figure (both empty if it is not there): the
    words around a figure say what it is — its month, its day, a projection, a range, a weight."""
    figure = str(claim.get("quote_figure"))
    at = next(iter(places_of(figure, quote)), -1)  # the figure itself, not its digits inside another
    return (quote[:at], quote[at + len(figure) :]) if at >= 0 else ("", "")


def figure_month(claim: dict[str, Any], quote: str) -> str | None:
    """The month the quote dates the claim's figure to ("6.8 per cent in August" → "August")."""
    found = MONTH_AFTER_FIGURE.match(around_figure(claim, quote)[1])
    return calendar.month_name[month_number(found.group(1))] if found else None


# A figure the sentence dates to one day: "… US$ 648.7 billion as on May 17, 2024".
_DAY_AFTER_FIGURE = re.compile(rf"^[^.;]{{0,40}}?\b(?:as on|as of|as at|on)\s+({DATE_RE.pattern})", re.I)


def figure_day(claim: dict[str, Any], quote: str) -> dt.date | None:
    """The day the quote dates the claim's figure to ("as on May 17, 2024")."""
    found = _DAY_AFTER_FIGURE.match(around_figure(claim, quote)[1])
    return first_date(found.group(1)) if found else None
