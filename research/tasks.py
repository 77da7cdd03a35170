"""Celery tasks: take an id, call a service."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

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


@shared_task(name=INGEST_TASK, bind=True)
def ingest_document(self: Any, document_id: int) -> str:
    """Ingest one document; safe to run twice (a finished document is left alone)."""
    from research.models import Document

    if not Document.objects.filter(pk=document_id).exists():
        return "gone"  # deleted before the worker got to it
    try:
        return document_ingest(document_id=document_id, task_id=self.request.id or "").status
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
