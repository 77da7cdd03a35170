"""The decision service and the rules the database enforces behind it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from core.models import AuditEvent
from reviews.models import ReviewDecision, ReviewTask
from reviews.services import ReviewAlreadyDecided, review_task_decide, review_task_request

pytestmark = pytest.mark.django_db


def test_reviewer_approves_and_the_decision_is_recorded_and_audited(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    decision = review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    task.refresh_from_db()
    assert (task.state, task.decided_by, task.resume_state) == ("approved", reviewer, "queued")
    assert decision.task_id == task.pk and decision.reviewer == reviewer
    event = AuditEvent.objects.filter(action="review_task.approve").get()
    assert event.after is not None
    assert (event.actor, event.subject_id, event.before, event.after["state"]) == (
        reviewer,
        str(task.pk),
        {"state": "pending"},
        "approved",
    )


def test_four_eyes_refuses_the_requester(make_user: Any, analyst: Any) -> None:
    # A reviewer who asked for the review (e.g. escalated their own chat) may not decide it.
    requester = make_user("reviewer", "analyst")
    task = review_task_request(
        requested_by=requester,
        subject_owner=analyst,
        kind="chat_escalation",
        title="q",
        graph_name="review_probe",
        thread_id="four-eyes-1",
    )
    with pytest.raises(PermissionDenied, match="Four-eyes"):
        review_task_decide(user=requester, task_id=task.pk, outcome="approve")
    task.refresh_from_db()
    assert task.state == "pending" and not ReviewDecision.objects.exists()


def test_four_eyes_refuses_the_owner_of_the_subject(make_task: Any, admin_user: Any) -> None:
    task = make_task(requested_by=None, subject_owner=admin_user)
    with pytest.raises(PermissionDenied, match="Four-eyes"):
        review_task_decide(user=admin_user, task_id=task.pk, outcome="approve")
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"


@pytest.mark.parametrize("reason", ["", "   \n "])
def test_reject_without_a_reason_is_refused(make_task: Any, reviewer: Any, reason: str) -> None:
    task = make_task()
    with pytest.raises(ValidationError) as excinfo:
        review_task_decide(user=reviewer, task_id=task.pk, outcome="reject", reason=reason)
    assert "reason" in excinfo.value.message_dict
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"
    review_task_decide(user=reviewer, task_id=task.pk, outcome="reject", reason="c2 does not match its recompute")
    assert ReviewTask.objects.get(pk=task.pk).decision.reason == "c2 does not match its recompute"


def test_edit_stores_the_edited_payload_and_a_diff(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    decision = review_task_decide(
        user=reviewer, task_id=task.pk, outcome="edit", edited={"body": "INFY closed at [c1].\nTCS: see note."}
    )
    assert decision.edited_payload == {"body": "INFY closed at [c1].\nTCS: see note."}
    assert "-TCS closed at [c2]." in decision.diff and "+TCS: see note." in decision.diff
    assert ReviewTask.objects.get(pk=task.pk).state == "edited"
    # The original snapshot stays as it was: the diff is against it.
    assert ReviewTask.objects.get(pk=task.pk).payload["editable"]["body"] == "INFY closed at [c1].\nTCS closed at [c2]."


@pytest.mark.parametrize(
    ("edited", "message"),
    [
        ({"title": "x"}, "Not editable: title"),
        ({"body": 5}, "must be text"),
        ({"body": "INFY closed at [c1].\nTCS closed at [c2]."}, "Nothing was changed"),
        ("body", "as an object"),
    ],
)
def test_bad_edits_are_refused(make_task: Any, reviewer: Any, edited: Any, message: str) -> None:
    task = make_task()
    with pytest.raises(ValidationError, match=message):
        review_task_decide(user=reviewer, task_id=task.pk, outcome="edit", edited=edited)
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"


def test_edit_is_refused_when_nothing_is_editable(make_task: Any, reviewer: Any) -> None:
    task = make_task(kind="chat_escalation")
    with pytest.raises(ValidationError, match="nothing a reviewer can edit"):
        review_task_decide(user=reviewer, task_id=task.pk, outcome="edit", edited={"answer": "x"})


def test_analyst_cannot_decide(make_task: Any, make_user: Any) -> None:
    task = make_task()
    other_analyst = make_user("analyst")
    with pytest.raises(PermissionDenied, match="Only reviewers"):
        review_task_decide(user=other_analyst, task_id=task.pk, outcome="approve")
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"


def test_unknown_outcome_is_refused(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    with pytest.raises(ValidationError, match="approve, edit or reject"):
        review_task_decide(user=reviewer, task_id=task.pk, outcome="expire")


def test_a_second_decision_is_refused_and_names_the_first(make_task: Any, reviewer: Any, make_user: Any) -> None:
    task = make_task()
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    with pytest.raises(ReviewAlreadyDecided, match=r"already approved by reviewer@example\.test"):
        review_task_decide(user=make_user("reviewer"), task_id=task.pk, outcome="reject", reason="late")
    assert ReviewDecision.objects.filter(task=task).count() == 1


def test_database_refuses_a_four_eyes_violation(make_task: Any, analyst: Any, make_user: Any) -> None:
    # Bypassing the service: the check constraints still refuse requester or owner as decider.
    owner = make_user("reviewer")
    task = make_task(subject_owner=owner)
    with pytest.raises(IntegrityError, match="review_four_eyes_not_requester"), transaction.atomic():
        ReviewTask.objects.filter(pk=task.pk).update(state="approved", decided_by=analyst, decided_at=task.created_at)
    with pytest.raises(IntegrityError, match="review_four_eyes_not_owner"), transaction.atomic():
        ReviewTask.objects.filter(pk=task.pk).update(state="approved", decided_by=owner, decided_at=task.created_at)
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"


def test_database_refuses_a_second_decision_row(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewDecision.objects.create(task=task, outcome="reject", reason="second", reviewer=reviewer)


def test_database_refuses_reject_without_reason_and_decided_without_reviewer(make_task: Any) -> None:
    task = make_task()
    with pytest.raises(IntegrityError, match="review_reject_needs_reason"), transaction.atomic():
        ReviewDecision.objects.create(task=task, outcome="reject", reason="")
    with pytest.raises(IntegrityError, match="review_decided_state_consistent"), transaction.atomic():
        ReviewTask.objects.filter(pk=task.pk).update(state="approved")


def test_request_is_idempotent_per_pause_and_checks_its_input(make_task: Any, analyst: Any) -> None:
    task = make_task(thread_id="same-run")
    again = review_task_request(
        requested_by=analyst, kind="brief_approval", title="again", graph_name="review_probe", thread_id="same-run"
    )
    assert again.pk == task.pk and ReviewTask.objects.count() == 1
    with pytest.raises(ValidationError, match="No graph called"):
        review_task_request(requested_by=analyst, kind="brief_approval", title="x", graph_name="nope", thread_id="t")
    with pytest.raises(ValidationError, match="Unknown review kind"):
        review_task_request(requested_by=analyst, kind="nope", title="x", graph_name="review_probe", thread_id="t")
