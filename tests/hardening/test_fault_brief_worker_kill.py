"""Fault: a Celery worker killed with SIGKILL in the middle of a brief run.

Induced for real: a worker runs a brief whose news feeds hold their answer, and is killed while its
news agent waits. The run is left "running" and its message unacknowledged; the broker would only
redeliver it after its visibility timeout (an hour). The beat sweep (``brief_runs_sweep``) sends a
run silent for ``BRIEF_RUN_RECOVER_AFTER_SECONDS`` again; a new worker resumes it to the reviewer's
gate, once: one brief, one review task. Approved, it is e-mailed once."""

from __future__ import annotations

import signal
import subprocess
import time
from typing import Any
from unittest import mock

import pytest
from celery import current_app

from tests.briefs.conftest import feeds, smtp_inbox, watchlist  # noqa: F401  (the brief's fixtures)
from tests.hardening.workers import start_worker, stop_workers, wait_for

QUEUE = "adk-brief-kill-test"


def _on_test_queue(task_name: str, *args: Any) -> bool:
    """Publish where only this test's workers listen (another test's worker may serve the default)."""
    current_app.tasks[task_name].apply_async(args, queue=QUEUE)
    return True


def _worker(name: str) -> subprocess.Popen[bytes]:
    return start_worker(name, QUEUE, BRIEF_NEWS_SOURCE="feeds", BRIEF_RUN_RECOVER_AFTER_SECONDS="1")


@pytest.mark.worker
@pytest.mark.timeout(240)
def test_a_brief_run_whose_worker_is_killed_is_resumed_by_the_sweep_once(
    transactional_db: Any,
    analyst: Any,
    reviewer: Any,
    watchlist: Any,  # noqa: F811
    feeds: Any,  # noqa: F811
    smtp_inbox: Any,  # noqa: F811
    settings: Any,
) -> None:
    from briefs.models import Brief, BriefRun
    from briefs.services import brief_run_start, brief_runs_sweep
    from core.models import AuditEvent
    from reviews.models import ReviewTask
    from reviews.services import review_task_decide

    watchlist.tickers = ["INFY.NS", "TCS.NS"]
    watchlist.save()
    feeds.delay = 60.0  # the news agent waits on its feeds: the worker is killed mid-run
    first, second = _worker("brief-doomed"), None
    try:
        with mock.patch("briefs.services.enqueue", _on_test_queue):
            run = brief_run_start(user=analyst, watchlist_id=watchlist.pk)
        wait_for(lambda: feeds.requests, 90, "the news agent's first feed request")
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        assert BriefRun.objects.get(pk=run.pk).status == "running"  # left behind, message unacknowledged

        feeds.delay = 0.0
        second = _worker("brief-rescuer")
        settings.BRIEF_RUN_RECOVER_AFTER_SECONDS = 1
        time.sleep(1.5)  # the dead worker's last step is now older than the threshold
        with mock.patch("briefs.services.enqueue", _on_test_queue):
            assert brief_runs_sweep() == {"requeued": 0, "resumed": 1}  # what the beat would do
        wait_for(lambda: BriefRun.objects.get(pk=run.pk).status == "awaiting_review", 120, "the resumed run")
        assert Brief.objects.filter(run=run).count() == 1
        task = ReviewTask.objects.get(thread_id__startswith=run.thread_id)
        assert AuditEvent.objects.filter(action="brief_run.recovered", subject_id=str(run.pk)).count() == 1
        assert brief_runs_sweep() == {"requeued": 0, "resumed": 0}  # a run at the gate is not sent again

        with mock.patch("reviews.services.enqueue", _on_test_queue):
            review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
        wait_for(lambda: BriefRun.objects.get(pk=run.pk).status == "delivered", 60, "the delivery")
        wait_for(lambda: len(smtp_inbox.messages) >= 1, 10, "the e-mail")
        assert len(smtp_inbox.messages) == 1
        assert ReviewTask.objects.filter(thread_id__startswith=run.thread_id).count() == 1
    finally:
        stop_workers(first, second)
