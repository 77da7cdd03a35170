"""Celery tasks: take an id, call a service."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from core.exceptions import ApplicationError
from research.chat.services import CHAT_TURN_TASK
from research.chat.services import chat_turn_run as chat_turn_run_service
from research.chat.services import chat_turns_sweep as chat_turns_sweep_service
from research.services import (
    INGEST_TASK,
    document_ingest,
    document_ingest_postpone,
    document_ingest_sweep,
    document_mark_failed,
)

logger = logging.getLogger(__name__)


def time_limit_message(seconds: float) -> str:
    return (
        f"Ingestion stopped after its time limit of {seconds:.0f} s: the file is too large or complex to "
        "process in one go. Split it into smaller files (or ask an admin to raise INGEST_SOFT_TIME_LIMIT_SECONDS), "
        "then upload again."
    )


# Bounded (issue 49): the soft limit raises inside the run, which marks the document failed with
# a reason (its passages are stored in one transaction, so none of a half-run is kept); the hard
# limit, later, ends a child stuck where the soft one cannot reach (C code) — the sweep re-sends it.
@shared_task(
    name=INGEST_TASK,
    bind=True,
    soft_time_limit=settings.INGEST_SOFT_TIME_LIMIT_SECONDS,
    time_limit=settings.INGEST_TIME_LIMIT_SECONDS,
)
def ingest_document(self: Any, document_id: int) -> str:
    """Ingest one document; safe to run twice (a finished document is left alone)."""
    from research.models import Document

    if not Document.objects.filter(pk=document_id).exists():
        return "gone"  # deleted before the worker got to it
    try:
        return document_ingest(document_id=document_id, task_id=self.request.id or "").status
    except SoftTimeLimitExceeded:
        logger.warning("ingesting document %s ran over its time limit", document_id)
        message = time_limit_message(self.soft_time_limit or settings.INGEST_SOFT_TIME_LIMIT_SECONDS)
        document_mark_failed(document_id=document_id, reason=message)
        return "failed"
    except Exception as exc:
        if isinstance(exc, ApplicationError) and exc.code == "storage_unavailable":
            # The bucket is down, not the document: it waits again and the ingest sweep resends it.
            document_ingest_postpone(document_id=document_id, reason=f"Waiting: {exc.message}")
            return "postponed"
        # A bug must not leave the document spinning forever: mark it failed with a reason.
        logger.exception("ingesting document %s failed", document_id)
        document_mark_failed(document_id=document_id, reason=f"Internal error while ingesting ({type(exc).__name__}).")
        return "failed"


# --- research agent (chat) --------------------------------------------------------------------
@shared_task(name=CHAT_TURN_TASK)
def chat_turn_run(turn_id: int) -> str:
    """Run the chat agent for one turn; a turn that is no longer queued is skipped."""
    return chat_turn_run_service(turn_id=turn_id)


@shared_task(name="research.chat_turns_sweep")
def chat_turns_sweep() -> dict[str, int]:
    """Re-enqueue chat turns a broker outage or a dead worker left waiting (beat, every minute)."""
    return chat_turns_sweep_service()


@shared_task(name="research.documents_ingest_sweep")
def documents_ingest_sweep() -> dict[str, int]:
    """Re-send documents a broker outage or a dead worker left waiting (beat, every minute)."""
    return document_ingest_sweep()
