"""Demo setup: load the shipped snapshot into the shared bar cache and give the demo analyst a
portfolio and a watchlist to look at (idempotent)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from portfolios import market, services
from portfolios.models import Portfolio, Watchlist

DEMO_ANALYST = "analyst@alphadesk.local"


class Command(BaseCommand):
    help = "Load the offline market snapshot into the cache; create a demo portfolio and watchlist."

    def handle(self, *args: Any, **options: Any) -> None:
        bars = market.snapshot_load_all()
        self.stdout.write(f"Market snapshot: {bars} bars cached.")
        user = get_user_model().objects.filter(email=DEMO_ANALYST).first()
        if user is None:
            return
        if not Portfolio.objects.filter(owner=user).exists():
            services.portfolio_create(
                user=user,
                name="India large caps",
                description="Demo: five NIFTY 50 names against the index.",
                holdings=[
                    ("RELIANCE.NS", 0.3),
                    ("HDFCBANK.NS", 0.25),
                    ("INFY.NS", 0.2),
                    ("TCS.NS", 0.15),
                    ("ITC.NS", 0.1),
                ],
                shared_with_team=True,
            )
        if not Watchlist.objects.filter(owner=user).exists():
            services.watchlist_create(
                user=user,
                name="Morning names",
                tickers=["RELIANCE.NS", "INFY.NS", "HDFCBANK.NS", "TCS.NS", "^NSEI"],
                recipients=[DEMO_ANALYST],
                brief_enabled=True,
            )
