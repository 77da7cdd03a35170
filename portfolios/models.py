"""Market-data cache (instruments, daily bars, fundamentals) and the user-owned watchlists and
portfolios. The cache is shared by every user and process, so N analysts never fetch the same bars
N times; watchlists and portfolios are private to their owner unless shared with the team."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q


class Instrument(models.Model):
    symbol = models.CharField(max_length=24, unique=True)
    name = models.CharField(max_length=200, blank=True)
    exchange = models.CharField(max_length=40, blank=True)
    currency = models.CharField(max_length=8, blank=True)
    sector = models.CharField(max_length=80, blank=True)
    industry = models.CharField(max_length=120, blank=True)
    kind = models.CharField(max_length=12, default="equity")
    source = models.CharField(max_length=40, blank=True, help_text="Provider the cached bars came from")
    first_bar_date = models.DateField(null=True, blank=True)
    last_bar_date = models.DateField(null=True, blank=True, help_text="Newest cached bar: the as-of date")
    bars_checked_at = models.DateTimeField(null=True, blank=True, help_text="Last time the provider was asked")
    bars_version = models.PositiveIntegerField(default=0, help_text="Bumped whenever cached bars change")

    class Meta:
        ordering = ["symbol"]

    def __str__(self) -> str:
        return self.symbol


class PriceBar(models.Model):
    instrument = models.ForeignKey(Instrument, on_delete=models.CASCADE, related_name="bars")
    date = models.DateField()
    open = models.FloatField(null=True)
    high = models.FloatField(null=True)
    low = models.FloatField(null=True)
    close = models.FloatField()
    volume = models.BigIntegerField(null=True)

    class Meta:
        ordering = ["instrument", "date"]
        constraints = [
            models.UniqueConstraint(fields=["instrument", "date"], name="pricebar_unique_instrument_date"),
            models.CheckConstraint(condition=Q(close__gt=0), name="pricebar_close_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.instrument_id} {self.date} {self.close}"


class FundamentalsSnapshot(models.Model):
    instrument = models.ForeignKey(Instrument, on_delete=models.CASCADE, related_name="fundamentals")
    fetched_at = models.DateTimeField()
    source = models.CharField(max_length=120)
    as_of = models.DateField(null=True, blank=True)
    data = models.JSONField()

    class Meta:
        ordering = ["-fetched_at"]
        indexes = [models.Index(fields=["instrument", "-fetched_at"])]

    def __str__(self) -> str:
        return f"{self.instrument_id} fundamentals @ {self.fetched_at:%Y-%m-%d %H:%M}"


class OwnedQuerySet(models.QuerySet[Any]):
    def visible_to(self, user: Any) -> OwnedQuerySet:
        """Own items plus items shared with the team (the deployment is one analyst team)."""
        return self.filter(Q(owner=user) | Q(shared_with_team=True))


def _weekdays_default() -> list[int]:
    return [0, 1, 2, 3, 4]


def _brief_time_default() -> dt.time:
    return dt.time(7, 30)


class Watchlist(models.Model):
    """Tickers to follow. The brief schedule fields are consumed by the morning-brief pipeline."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watchlists")
    name = models.CharField(max_length=100)
    tickers = ArrayField(models.CharField(max_length=24), default=list)
    recipients = ArrayField(models.EmailField(), default=list, blank=True)
    timezone = models.CharField(max_length=64, default="Asia/Kolkata")
    shared_with_team = models.BooleanField(default=False)
    brief_enabled = models.BooleanField(default=False)
    brief_time = models.TimeField(default=_brief_time_default, help_text="Local time in `timezone`")
    brief_weekdays = ArrayField(
        models.PositiveSmallIntegerField(), default=_weekdays_default, help_text="0=Mon … 6=Sun"
    )
    # When the brief schedule was last switched on or retimed (set by briefs.schedules): a slot
    # before it was never promised, so a missed one is not caught up.
    brief_schedule_since = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="watchlist_unique_owner_name")]

    def __str__(self) -> str:
        return self.name

    def snapshot(self) -> dict[str, Any]:
        """What the audit log records before/after a change."""
        return {
            "name": self.name,
            "tickers": list(self.tickers),
            "recipients": list(self.recipients),
            "timezone": self.timezone,
            "shared_with_team": self.shared_with_team,
            "brief_enabled": self.brief_enabled,
            "brief_time": self.brief_time.strftime("%H:%M") if self.brief_time else None,
            "brief_weekdays": list(self.brief_weekdays),
        }


class Portfolio(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="portfolios")
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=500, blank=True)
    benchmark = models.CharField(max_length=24, blank=True, help_text="Empty: ^NSEI for Indian holdings, else SPY")
    shared_with_team = models.BooleanField(default=False)
    risk_free_rate = models.FloatField(
        null=True,
        blank=True,
        help_text="Annual, as a fraction (0.055 = 5.50 %); empty: the default for the holdings' currency",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="portfolio_unique_owner_name"),
            models.CheckConstraint(
                condition=Q(risk_free_rate__isnull=True) | (Q(risk_free_rate__gte=-0.05) & Q(risk_free_rate__lte=0.5)),
                name="portfolio_risk_free_rate_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def snapshot(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "benchmark": self.benchmark,
            "shared_with_team": self.shared_with_team,
            "risk_free_rate": self.risk_free_rate,
            "holdings": [[h.ticker, h.weight] for h in self.holdings.all()],
        }


class Holding(models.Model):
    portfolio = models.ForeignKey(Portfolio, on_delete=models.CASCADE, related_name="holdings")
    ticker = models.CharField(max_length=24)
    weight = models.FloatField()

    class Meta:
        ordering = ["-weight", "ticker"]
        constraints = [
            models.UniqueConstraint(fields=["portfolio", "ticker"], name="holding_unique_portfolio_ticker"),
            models.CheckConstraint(condition=Q(weight__gte=0) & Q(weight__lte=1), name="holding_weight_0_1"),
        ]

    def __str__(self) -> str:
        return f"{self.ticker} {self.weight:.4f}"
