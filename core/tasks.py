import socket

from celery import shared_task
from django.utils import timezone

from core.models import WorkerProbe


@shared_task
def worker_probe_complete(probe_id: int) -> None:
    """Mark a probe done; idempotent (a redelivered task leaves the first completion)."""
    WorkerProbe.objects.filter(pk=probe_id, completed_at__isnull=True).update(
        completed_at=timezone.now(), worker=socket.gethostname()
    )
