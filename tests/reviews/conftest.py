"""Review fixtures: tasks on the registered ``review_probe`` graph with realistic payloads."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import pytest

BRIEF_PAYLOAD = {
    "brief": {"title": "IT services", "as_of": "2024-12-31", "source": "snapshot"},
    "editable": {"body": "INFY closed at [c1].\nTCS closed at [c2]."},
    "claims": [
        {
            "id": "c1",
            "ticker": "INFY.NS",
            "metric": "close",
            "value": "1,935.10",
            "recomputed": "1,935.10",
            "verified": True,
        },
        {
            "id": "c2",
            "ticker": "TCS.NS",
            "metric": "close",
            "value": "4,108.45",
            "recomputed": "4,100.00",
            "verified": False,
        },
    ],
    "verification": {"status": "failed", "summary": "1 of 2 claims did not match its recomputation."},
}
CHAT_PAYLOAD = {
    "question": "Did the June 2024 minutes signal a cut?",
    "reason": "conflicting passages",
    "confidence": 0.41,
    "conversation": [{"role": "analyst", "content": "Did the June 2024 minutes signal a cut?"}],
    "trace": [{"node": "retrieve", "tool": "search_documents", "latency_ms": 42}],
}


@pytest.fixture
def make_task(analyst: Any) -> Any:
    from reviews.models import ReviewTask
    from reviews.services import review_task_request

    def make(
        *,
        kind: str = ReviewTask.Kind.BRIEF_APPROVAL,
        requested_by: Any = analyst,
        subject_owner: Any = analyst,
        thread_id: str | None = None,
        payload: dict[str, Any] | None = None,
        title: str = "IT services brief",
        due_at: datetime | None = None,
    ) -> ReviewTask:
        if payload is None:
            payload = BRIEF_PAYLOAD if kind == ReviewTask.Kind.BRIEF_APPROVAL else CHAT_PAYLOAD
        task = review_task_request(
            requested_by=requested_by,
            subject_owner=subject_owner,
            kind=kind,
            title=title,
            graph_name="review_probe",
            thread_id=thread_id or f"t-{uuid.uuid4()}",
            payload=payload,
        )
        if due_at is not None:
            ReviewTask.objects.filter(pk=task.pk).update(due_at=due_at)
            task.refresh_from_db()
        return task

    return make
