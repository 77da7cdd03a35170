"""The beat task: overdue review tasks escalate (email through a real SMTP server) or expire."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from core.models import AuditEvent
from reviews.models import ReviewTask
from reviews.tasks import review_tasks_sweep

pytestmark = pytest.mark.django_db


class Inbox:
    """aiosmtpd handler: keeps every delivered message."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], Any]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def test_the_sweep_is_a_registered_beat_task() -> None:
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["reviews-sweep-overdue"]
    assert entry["task"] == "reviews.tasks.review_tasks_sweep"
    assert entry["schedule"] == settings.REVIEW_SWEEP_SECONDS > 0
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks


@override_settings(REVIEW_OVERDUE_ACTION="expire")
def test_overdue_task_expires_and_the_run_is_told(make_task: Any, django_capture_on_commit_callbacks: Any) -> None:
    overdue = make_task(title="late", due_at=timezone.now() - timedelta(minutes=1))
    on_time = make_task(title="fine")
    with django_capture_on_commit_callbacks() as callbacks:
        assert review_tasks_sweep.apply().get() == {"escalated": 0, "expired": 1, "requeued": 0}
    overdue.refresh_from_db()
    assert (overdue.state, overdue.decision.outcome, overdue.resume_state) == ("expired", "expire", "queued")
    assert overdue.decided_at is not None and overdue.decided_by is None
    assert ReviewTask.objects.get(pk=on_time.pk).state == "pending"
    assert AuditEvent.objects.filter(action="review_task.expire", subject_id=str(overdue.pk)).count() == 1
    assert len(callbacks) == 2  # enqueue the resume, then notify
    # A second sweep finds nothing more to do.
    assert review_tasks_sweep.apply().get() == {"escalated": 0, "expired": 0, "requeued": 0}


def test_escalation_emails_reviewers_through_smtp_then_expires(
    smtp: tuple[Inbox, int], make_task: Any, reviewer: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    inbox, port = smtp
    task = make_task(title="IT services brief", due_at=timezone.now() - timedelta(minutes=5))
    smtp_settings = {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": port,
        "EMAIL_USE_TLS": False,
        "EMAIL_HOST_USER": "",
        "EMAIL_HOST_PASSWORD": "",
        "REVIEW_OVERDUE_ACTION": "escalate",
        "REVIEW_ESCALATION_GRACE_HOURS": 2.0,
    }
    with override_settings(**smtp_settings):
        with django_capture_on_commit_callbacks(execute=True):
            assert review_tasks_sweep.apply().get() == {"escalated": 1, "expired": 0, "requeued": 0}
        task.refresh_from_db()
        assert task.state == "pending" and task.priority == ReviewTask.Priority.URGENT
        assert task.escalated_at is not None and task.due_at > timezone.now() + timedelta(hours=1.9)
        assert len(inbox.messages) == 1
        recipients, message = inbox.messages[0]
        assert recipients == [reviewer.email]  # reviewers and admins, not the analyst
        assert message["Subject"] == "[AlphaDesk] Overdue review: IT services brief"
        assert f"/reviews/{task.pk}/" in message.get_payload()

        # Still undecided after the grace period: it expires and the requester is told.
        later = task.due_at + timedelta(minutes=1)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            from reviews.services import review_tasks_sweep as sweep

            assert sweep(now=later) == {"escalated": 0, "expired": 1, "requeued": 0}
        callbacks[-1]()  # only the notification; the resume enqueue is covered with the worker
        assert ReviewTask.objects.get(pk=task.pk).state == "expired"
        assert len(inbox.messages) == 2
        recipients, message = inbox.messages[1]
        assert recipients == [analyst.email] and message["Subject"] == "[AlphaDesk] Review expired: IT services brief"


def test_sweep_requeues_a_stuck_resume_and_the_run_is_resumed_once(
    make_task: Any, reviewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from reviews.probe_graph import probe_run_start, probe_run_state
    from reviews.services import review_task_decide, review_task_resume_run

    thread_id = probe_run_start(title="stuck")
    task = make_task(thread_id=thread_id)
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    # The worker claimed the resume and died before finishing it.
    an_hour_ago = timezone.now() - timedelta(hours=1)
    ReviewTask.objects.filter(pk=task.pk).update(resume_state="running", resume_claimed_at=an_hour_ago)
    with django_capture_on_commit_callbacks() as callbacks:
        assert review_tasks_sweep.apply().get()["requeued"] == 1
    assert len(callbacks) == 1 and ReviewTask.objects.get(pk=task.pk).resume_state == "queued"
    assert review_task_resume_run(task_id=task.pk) == "done"
    assert review_task_resume_run(task_id=task.pk) == "skipped"  # a duplicate message
    # Even if it is queued again (the first worker was only slow), the run is not resumed twice.
    ReviewTask.objects.filter(pk=task.pk).update(resume_state="queued", decided_at=an_hour_ago)
    assert review_tasks_sweep.apply().get()["requeued"] == 1
    assert review_task_resume_run(task_id=task.pk) == "nothing"
    values = probe_run_state(thread_id)["values"]
    assert values["result"] == "published" and values["log"] == ["prepared", "resumed:approve", "finished"]
