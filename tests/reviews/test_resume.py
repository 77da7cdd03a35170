"""Pause → decide → resume → completion across processes, with the real Celery worker; and
exactly one decision and one resume under 20 concurrent decisions and redelivered messages."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from django.db import connection

from core.models import AuditEvent
from reviews.models import ReviewDecision, ReviewTask
from reviews.probe_graph import probe_run_start, probe_run_state
from reviews.services import ReviewAlreadyDecided, review_task_decide
from reviews.tasks import review_task_resume

pytestmark = [pytest.mark.worker, pytest.mark.timeout(120)]


def wait_for_resume(task_id: int, timeout: float = 45) -> ReviewTask:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = ReviewTask.objects.get(pk=task_id)
        if task.resume_state not in {"queued", "running"}:
            return task
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} was not resumed in {timeout}s (resume_state={task.resume_state})")


def test_decision_resumes_the_paused_graph_in_the_worker_process(
    celery_worker: Any, make_task: Any, reviewer: Any
) -> None:
    thread_id = probe_run_start(title="IT services brief")
    assert probe_run_state(thread_id)["waiting"] is True
    task = make_task(thread_id=thread_id)

    review_task_decide(user=reviewer, task_id=task.pk, outcome="edit", edited={"body": "Edited body."})

    task = wait_for_resume(task.pk)
    assert task.resume_state == "done", task.resume_error
    state = probe_run_state(thread_id)
    assert state["waiting"] is False and state["next"] == []
    values = state["values"]
    assert values["result"] == "published"
    assert values["decision"]["outcome"] == "edit"
    assert values["decision"]["edited"] == {"body": "Edited body."}
    assert values["decision"]["reviewer"] == reviewer.email
    assert values["log"] == ["prepared", "resumed:edit", "finished"]
    # The run paused here and finished in the worker: another process, same checkpointer.
    assert values["finished_pid"] == celery_worker.proc.pid != os.getpid()


def test_twenty_concurrent_decisions_give_one_decision_and_one_resume(celery_worker: Any, make_task: Any) -> None:
    thread_id = probe_run_start(title="race")
    task = make_task(thread_id=thread_id)
    from core.services import user_ensure

    # No passwords: hashing 20 of them would dominate the test's time.
    reviewers = [user_ensure(email=f"racer{i}@example.test", roles=["reviewer"], password=None)[0] for i in range(20)]
    barrier = threading.Barrier(len(reviewers))
    results: list[str] = []
    lock = threading.Lock()

    def decide(user: Any, index: int) -> None:
        # Each thread has its own database connection (Django connections are per thread).
        try:
            barrier.wait(timeout=30)
            if index % 2:
                review_task_decide(user=user, task_id=task.pk, outcome="approve")
            else:
                review_task_decide(user=user, task_id=task.pk, outcome="reject", reason=f"no {index}")
            outcome = "decided"
        except ReviewAlreadyDecided:
            outcome = "conflict"
        except Exception as exc:  # any other error is a failure of the test
            outcome = f"error: {exc!r}"
        finally:
            connection.close()
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=decide, args=(user, i)) for i, user in enumerate(reviewers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(results) == ["conflict"] * 19 + ["decided"]
    assert ReviewDecision.objects.filter(task_id=task.pk).count() == 1
    decisions = AuditEvent.objects.filter(
        subject_id=str(task.pk), action__in=["review_task.approve", "review_task.reject"]
    )
    assert decisions.count() == 1

    task = wait_for_resume(task.pk)
    assert task.resume_state == "done"
    # A retried/redelivered resume message must not resume a second time.
    review_task_resume.delay(task.pk)
    review_task_resume.delay(task.pk)
    time.sleep(1.5)
    assert AuditEvent.objects.filter(subject_id=str(task.pk), action="review_task.resume").count() == 1
    log = probe_run_state(thread_id)["values"]["log"]
    assert len([entry for entry in log if entry.startswith("resumed:")]) == 1
    assert log[-1] == "finished"


def test_resume_of_a_run_with_nothing_paused_is_recorded_not_repeated(
    celery_worker: Any, make_task: Any, reviewer: Any
) -> None:
    # The task points at a thread with no paused run (e.g. resumed by hand): nothing is invoked.
    task = make_task(thread_id="never-started")
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    assert wait_for_resume(task.pk).resume_state == "nothing"
