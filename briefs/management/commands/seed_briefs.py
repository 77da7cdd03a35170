"""Demo: schedule every brief-enabled watchlist (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from briefs.schedules import brief_schedule_sync
from portfolios.models import Watchlist


class Command(BaseCommand):
    help = "Install the per-watchlist morning-brief beat schedules (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        scheduled = sum(1 for w in Watchlist.objects.all() if brief_schedule_sync(watchlist=w) is not None)
        self.stdout.write(f"{scheduled} watchlist brief schedule(s) installed.")
