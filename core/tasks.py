import logging
import socket
from typing import Any

from celery import current_app, shared_task
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from core.models import WorkerProbe

logger = logging.getLogger(__name__)
# What publishing raises when the broker is down or stalled: kombu's OperationalError (a connection
# refused, after Celery's publish retries), redis-py's errors, and a socket's timeout or reset.
BROKER_ERRORS = (OperationalError, RedisError, OSError)
# One retry, at once: a broker that refused twice is down; the sweep sends the task later.
_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0, "interval_max": 0}


def publish_transport_options() -> dict[str, float]:
    seconds = settings.CELERY_PUBLISH_TIMEOUT_SECONDS
    return {"socket_timeout": seconds, "socket_connect_timeout": seconds}


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


#: What a write answers when its row is saved but the work queue (the broker) could not take the task.
QUEUE_DOWN_NOTICE = (
    "The work queue is unavailable right now: what you sent is saved and will run when the queue is back."
)


def enqueue(task_name: str, *args: Any) -> bool:
    """Send the Celery task registered as ``task_name`` with ``args``; False when the broker could
    not take it (down, or not answering within ``CELERY_BROKER_TRANSPORT_OPTIONS``' timeouts).

    Every caller has saved its row first, and a beat sweep of that kind sends again what is still
    waiting, so a broker outage delays the work instead of losing it or failing the request.

    Services enqueue by the task's registered name rather than importing their app's tasks module:
    a task calls back into the services, so the import would close a cycle. The registry lookup
    returns the very task object (eager mode, routing and options unchanged) and raises KeyError on
    a misspelt name instead of publishing a message no worker knows. Each app's ``ready()`` imports
    its tasks module, so every process has them registered.
    """
    task = current_app.tasks[task_name]
    try:
        # A connection of its own with short timeouts: a stalled broker (stopped, partitioned)
        # accepts the socket and never answers, and the request that publishes must not hang on it.
        # The worker's and beat's long-lived connections keep the broker's own settings.
        with current_app.connection_for_write(transport_options=publish_transport_options()) as connection:
            task.apply_async(args, connection=connection, retry_policy=_PUBLISH_RETRY_POLICY)
    except BROKER_ERRORS:
        logger.warning("could not send %s%r: the broker is unavailable; its sweep sends it later", task_name, args)
        return False
    return True


def enqueue_flagging(subject: Any, task_name: str, *args: Any) -> None:
    """:func:`enqueue`, remembering on ``subject`` (a saved row) whether the queue took it, so the
    view that saved it can answer "saved, will run when the queue is back" (``queue_unavailable``).
    Meant for ``transaction.on_commit``: the row is committed before the broker is tried."""
    subject.queue_unavailable = not enqueue(task_name, *args)


def queue_unavailable(*subjects: Any) -> bool:
    return any(getattr(subject, "queue_unavailable", False) for subject in subjects)
