"""End to end with the real Celery worker, the deterministic engine, the snapshot data, a local
RSS server and a real SMTP server: RUN (API) → the worker pauses the run at the gate → a reviewer
approves in this process → the worker resumes and emails once; a second resume sends nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient


def _wait(check: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


@pytest.mark.timeout(180)
def test_run_gate_approve_email_once(
    celery_worker: Any, smtp_inbox: Any, feeds: Any, watchlist: Any, analyst: Any, reviewer: Any
) -> None:
    from briefs.models import Brief, BriefDelivery, BriefRun
    from briefs.services import brief_deliver
    from reviews.models import ReviewTask
    from reviews.services import review_task_decide
    from reviews.tasks import review_task_resume

    api = APIClient()
    api.force_authenticate(analyst)
    started = api.post("/api/v1/briefs/runs", {"watchlist_id": watchlist.pk}, format="json")
    assert started.status_code == 202, started.content
    run_id = started.json()["id"]
    again = api.post("/api/v1/briefs/runs", {"watchlist_id": watchlist.pk}, format="json")
    assert again.status_code == 409 and again.json()["active_run_id"] == run_id
    bad = api.post("/api/v1/briefs/runs", {"watchlist_id": "x"}, format="json")
    assert bad.status_code == 400

    _wait(lambda: BriefRun.objects.get(pk=run_id).status == "awaiting_review")
    task = ReviewTask.objects.get(thread_id=f"brief-run-{run_id}")
    assert task.payload["verification"]["status"] == "verified"
    assert smtp_inbox.messages == []  # nothing leaves before a human decides

    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    _wait(lambda: BriefRun.objects.get(pk=run_id).status == "delivered")
    _wait(lambda: len(smtp_inbox.messages) >= 1, timeout=10)
    assert len(smtp_inbox.messages) == 1
    rcpts, message = smtp_inbox.messages[0]
    assert sorted(rcpts) == ["desk@example.test", "pm@example.test"]
    parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in message.walk() if not p.is_multipart()}
    brief = Brief.objects.get(run_id=run_id)
    claim = next(c for c in brief.claims if c["ticker"] == "RELIANCE.NS" and c["metric"] == "last_close")
    figure = f"₹{claim['value']:,.2f}"  # the house convention: currency symbol, two decimals
    assert figure in parts["text/plain"] and figure in parts["text/html"]
    assert "{{c" not in parts["text/plain"] and " INR" not in parts["text/plain"]
    assert 'style="' in parts["text/html"] and "<table" in parts["text/html"]  # inline styles, a table
    delivery = BriefDelivery.objects.get(brief=brief)
    assert delivery.emailed and delivery.text == parts["text/plain"].replace("\r\n", "\n")

    # A second resume (redelivered message) and a retried delivery send nothing.
    ReviewTask.objects.filter(pk=task.pk).update(resume_state=ReviewTask.ResumeState.QUEUED)
    review_task_resume.delay(task.pk)
    settled = {ReviewTask.ResumeState.QUEUED, ReviewTask.ResumeState.RUNNING}  # until the worker has answered it
    _wait(lambda: ReviewTask.objects.get(pk=task.pk).resume_state not in settled)
    brief_deliver(run_id=run_id, brief_id=brief.pk)
    time.sleep(1)
    assert len(smtp_inbox.messages) == 1
    assert ReviewTask.objects.get(pk=task.pk).resume_state == ReviewTask.ResumeState.NOTHING_TO_RESUME

    detail = api.get(f"/api/v1/briefs/{brief.pk}")
    assert detail.status_code == 200 and detail.json()["status"] == "approved"
    assert api.get(f"/api/v1/briefs/runs/{run_id}").json()["status"] == "delivered"
