"""Admin entries: documents (re-ingest, team reference set), conversations, briefs and runs, and
evaluation runs (read-only)."""

from __future__ import annotations

from typing import Any

import pytest

from core.models import AuditEvent
from research.chat.models import Conversation
from research.models import Document
from research.services import UploadFile, document_ingest, document_upload

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["research/document", "research/conversation", "briefs/brief", "briefs/briefrun", "evaluation/evalrun"]
)
def test_admin_lists_open_for_admins_only(client: Any, admin_user: Any, analyst: Any, path: str) -> None:
    client.force_login(admin_user)
    assert client.get(f"/admin/{path}/").status_code == 200
    client.force_login(analyst)
    assert client.get(f"/admin/{path}/").status_code == 302  # to the admin login


def test_conversations_briefs_and_runs_are_read_only(client: Any, admin_user: Any) -> None:
    conversation = Conversation.objects.create(owner=admin_user, title="Repo rate")
    client.force_login(admin_user)
    page = client.get(f"/admin/research/conversation/{conversation.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get("/admin/research/conversation/add/").status_code == 403
    assert client.get("/admin/briefs/brief/add/").status_code == 403


def test_evaluation_runs_are_listed_read_only_with_their_cases(client: Any, admin_user: Any) -> None:
    from evaluation.models import EvalCaseResult, EvalRun

    run = EvalRun.objects.create(suite="adversarial", status="done", total=2, done=2, passed=1, gate_ok=False)
    EvalCaseResult.objects.create(run=run, seq=1, case_id="indirect-web-exfil", variant="gullible", outcome="fail")
    client.force_login(admin_user)
    listing = client.get("/admin/evaluation/evalrun/").content.decode()
    assert f"Evaluation #{run.pk} (adversarial, deterministic)" in listing and "1 of 2" in listing
    page = client.get(f"/admin/evaluation/evalrun/{run.pk}/change/")
    body = page.content.decode()
    assert page.status_code == 200 and 'name="_save"' not in body
    assert "indirect-web-exfil" in body and f'href="/evaluation/runs/{run.pk}/"' in body
    assert client.get("/admin/evaluation/evalrun/add/").status_code == 403
    assert client.post(f"/admin/evaluation/evalrun/{run.pk}/delete/").status_code == 403
    assert EvalRun.objects.filter(pk=run.pk).exists()


def test_reingest_action_queues_and_audits(
    client: Any, admin_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    document = document_upload(
        user=admin_user, files=[UploadFile(name="n.txt", data=b"Rates held. Growth firm.")]
    ).created[0]
    document_ingest(document_id=document.pk)
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            "/admin/research/document/", {"action": "reingest", "_selected_action": [document.pk]}, follow=True
        )
    assert "queued for re-ingestion" in response.content.decode()
    document.refresh_from_db()
    assert document.status == Document.Status.QUEUED and len(callbacks) == 1
    event = AuditEvent.objects.get(action="document.reingest", subject_id=str(document.pk))
    assert event.actor_id == admin_user.pk and event.before == {"status": "done", "chunks": 1}
    assert document_ingest(document_id=document.pk).status == Document.Status.DONE  # the worker's job


def test_reference_set_actions(client: Any, admin_user: Any) -> None:
    document = document_upload(user=admin_user, files=[UploadFile(name="r.txt", data=b"Reference.")]).created[0]
    client.force_login(admin_user)
    client.post("/admin/research/document/", {"action": "add_to_reference_set", "_selected_action": [document.pk]})
    assert Document.objects.get(pk=document.pk).is_reference is True
