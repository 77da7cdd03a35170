"""Keep each watchlist's beat entry in step with its schedule fields, whichever path saved it."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from portfolios.models import Watchlist


@receiver(post_save, sender=Watchlist, dispatch_uid="briefs_schedule_sync")
def _sync(sender: Any, instance: Watchlist, **kwargs: Any) -> None:
    from briefs.schedules import brief_schedule_sync

    brief_schedule_sync(watchlist=instance)


@receiver(post_delete, sender=Watchlist, dispatch_uid="briefs_schedule_delete")
def _delete(sender: Any, instance: Watchlist, **kwargs: Any) -> None:
    from django_celery_beat.models import PeriodicTask

    from briefs.schedules import schedule_name

    PeriodicTask.objects.filter(name=schedule_name(instance.pk)).delete()
