import socket
from typing import Any

from celery import current_app, shared_task
from django.utils import timezone

from core.models import WorkerProbe


@shared_task
def worker_probe_complete(probe_id: int, hold_seconds: float = 0.0) -> None:
    """Mark a probe done; idempotent (a redelivered task leaves the first completion).

    ``hold_seconds`` keeps the task's database session busy that long first, so a test can watch
    a worker's sessions while its tasks run: Celery closes a prefork child's pool after every task.
    """
    if hold_seconds > 0:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(%s)", [min(hold_seconds, 5.0)])
    WorkerProbe.objects.filter(pk=probe_id, completed_at__isnull=True).update(
        completed_at=timezone.now(), worker=socket.gethostname()
    )


def enqueue(task_name: str, *args: Any) -> None:
    """Send the Celery task registered as ``task_name`` with ``args``.

    Services enqueue by the task's registered name rather than importing their app's tasks module:
    a task calls back into the services, so the import would close a cycle. The registry lookup
    returns the very task object (eager mode, routing and options unchanged) and raises KeyError on
    a misspelt name instead of publishing a message no worker knows. Each app's ``ready()`` imports
    its tasks module, so every process has them registered.
    """
    current_app.tasks[task_name].delay(*args)
