"""Fault: the worker resuming an approved brief is killed (SIGKILL) while it delivers.

Induced for real: the worker's SMTP server accepts the connection and never answers, and the worker
is killed while it waits. The reviewer's decision was already applied (the graph's interrupt is
consumed) but the run has not finished: it is still "awaiting review", its resume "running". The
review sweep, some minutes later (here: called with a ``now`` eleven minutes ahead), sends the resume
again; a new worker continues the graph from its checkpoint and delivers: one brief, one e-mail to
the recipients, the run delivered, the resume done."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from celery import current_app
from django.utils import timezone

from tests.briefs.conftest import smtp_inbox, watchlist  # noqa: F401  (the brief's fixtures)
from tests.hardening.workers import start_worker, stop_workers, wait_for

QUEUE = "adk-brief-resume-kill-test"


def _on_test_queue(task_name: str, *args: Any) -> None:
    """Publish where only this test's workers listen (another test's worker may serve the default)."""
    current_app.tasks[task_name].apply_async(args, queue=QUEUE)


class SilentSmtp:
    """A TCP server that accepts SMTP connections and never greets: the client waits."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = int(self.sock.getsockname()[1])
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        for conn in self.accepted:
            conn.close()
        self.sock.close()


def _graph_state(thread_id: str) -> tuple[bool, list[str]]:
    from briefs.agent.graph import build_graph
    from core.checkpoint import checkpointer

    with checkpointer() as saver:
        snapshot = build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": thread_id}})
    return bool(snapshot.interrupts), list(snapshot.next)


@pytest.mark.worker
@pytest.mark.timeout(240)
def test_an_approved_brief_whose_worker_dies_while_delivering_is_delivered_once(
    transactional_db: Any,
    analyst: Any,
    reviewer: Any,
    watchlist: Any,  # noqa: F811
    smtp_inbox: Any,  # noqa: F811
) -> None:
    from briefs import runs
    from briefs.models import Brief, BriefDelivery, BriefRun
    from briefs.services import brief_run_start
    from reviews.models import ReviewTask
    from reviews.services import review_task_decide, review_tasks_sweep

    silent = SilentSmtp()
    first: subprocess.Popen[bytes] | None = start_worker("resume-doomed", QUEUE, EMAIL_PORT=str(silent.port))
    second: subprocess.Popen[bytes] | None = None
    try:
        watchlist.tickers = ["INFY.NS", "TCS.NS"]
        watchlist.save()
        with mock.patch("briefs.services.enqueue"):  # to the gate in this process; the worker resumes it
            run = brief_run_start(user=analyst, watchlist_id=watchlist.pk)
        assert runs.brief_run_execute(run_id=run.pk) == "awaiting_review"
        task = ReviewTask.objects.get(thread_id=run.thread_id)

        with mock.patch("reviews.services.enqueue", _on_test_queue):
            review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        wait_for(lambda: silent.accepted, 90, "the resuming worker's SMTP connection")
        # The decision is applied and the graph waits to deliver: what the demo's sweep took for
        # "nothing to resume". (The worker's SMTP timeout is 10 s: it is killed well before.)
        wait_for(lambda: _graph_state(run.thread_id) == (False, ["deliver"]), 5, "the checkpoint after the gate")
        assert first is not None
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

        assert BriefRun.objects.get(pk=run.pk).status == "awaiting_review"
        task.refresh_from_db()
        assert (task.resume_state, task.resume_attempts) == ("running", 1)
        assert Brief.objects.filter(run=run).count() == 1
        assert BriefDelivery.objects.count() == 0
        assert smtp_inbox.messages == []

        second = start_worker("resume-rescuer", QUEUE)  # the real SMTP server (aiosmtpd)
        with mock.patch("reviews.services.enqueue", _on_test_queue):
            counts = review_tasks_sweep(now=timezone.now() + timedelta(minutes=11))  # what beat would do
        assert counts == {"escalated": 0, "expired": 0, "requeued": 1}
        wait_for(lambda: BriefRun.objects.get(pk=run.pk).status == "delivered", 90, "the delivery")
        wait_for(lambda: ReviewTask.objects.get(pk=task.pk).resume_state == "done", 10, "the resume's end")
        time.sleep(1.0)  # a second e-mail, were one sent, would have arrived by now

        assert Brief.objects.filter(run=run).count() == 1
        assert BriefDelivery.objects.count() == 1
        assert len(smtp_inbox.messages) == 1
        recipients, _ = smtp_inbox.messages[0]
        assert sorted(recipients) == ["desk@example.test", "pm@example.test"]
        task.refresh_from_db()
        assert (task.resume_state, task.resume_attempts) == ("done", 2)
        assert BriefRun.objects.filter(watchlist=watchlist).count() == 1
    finally:
        stop_workers(first, second)
        silent.close()
