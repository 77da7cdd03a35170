"""Inbox, detail and decision pages and the review API: same rules, clear errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from reviews.models import ReviewDecision, ReviewTask

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)  # password logins are covered by tests/core; hashing is slow
    return client


def test_analyst_can_neither_see_nor_decide_tasks_by_page_or_api(make_task: Any, make_user: Any) -> None:
    task = make_task()
    other = client_for(make_user("analyst"))
    for url in ("/reviews/", f"/reviews/{task.pk}/", "/reviews/audit/", "/reviews/audit/export.csv"):
        assert other.get(url).status_code == 403, url
    assert other.post(f"/reviews/{task.pk}/decide/", {"outcome": "approve"}).status_code == 403
    assert other.get("/api/v1/reviews/tasks").status_code == 403
    assert other.get(f"/api/v1/reviews/tasks/{task.pk}").status_code == 403
    response = other.post(
        f"/api/v1/reviews/tasks/{task.pk}/decide", {"outcome": "approve"}, content_type="application/json"
    )
    assert response.status_code == 403
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"
    assert b"reviews-badge" not in other.get("/").content


def test_inbox_lists_filters_and_sorts(make_task: Any, reviewer: Any, make_user: Any) -> None:
    other_requester = make_user("analyst")
    brief = make_task(title="Brief one")
    chat = make_task(kind="chat_escalation", title="Chat one", requested_by=other_requester)
    client = client_for(reviewer)
    page = client.get("/reviews/").content.decode()
    assert "Brief one" in page and "Chat one" in page
    assert 'data-testid="reviews-badge"' in page and ">2</span>" in page

    only_chat = client.get("/reviews/", {"kind": "chat_escalation"}).content.decode()
    assert "Chat one" in only_chat and "Brief one" not in only_chat
    by_requester = client.get("/reviews/", {"requester": other_requester.pk}).content.decode()
    assert "Chat one" in by_requester and "Brief one" not in by_requester
    newest_first = client.get("/reviews/", {"sort": "-created"}).content.decode()
    assert newest_first.index("Chat one") < newest_first.index("Brief one")
    oldest_first = client.get("/reviews/", {"sort": "created"}).content.decode()
    assert oldest_first.index("Brief one") < oldest_first.index("Chat one")
    assert "Brief one" not in client.get("/reviews/", {"age": "older"}).content.decode()

    # htmx asks for the table only
    partial = client.get("/reviews/", {"kind": "brief_approval"}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="task-table">') and "<html" not in partial
    assert f'href="/reviews/{brief.pk}/"' in partial and f"/reviews/{chat.pk}/" not in partial

    bad = client.get("/reviews/", {"kind": "bogus", "sort": "sideways"})
    assert bad.status_code == 400 and "not valid" in bad.content.decode()


def test_detail_renders_the_kind_specific_context(make_task: Any, reviewer: Any) -> None:
    brief = make_task()
    chat = make_task(kind="chat_escalation")
    client = client_for(reviewer)
    page = client.get(f"/reviews/{brief.pk}/").content.decode()
    assert 'data-testid="claims"' in page and "4,100.00" in page and "mismatch" in page
    assert "1 of 2 claims did not match" in page and 'name="edited-body"' in page
    page = client.get(f"/reviews/{chat.pk}/").content.decode()
    assert "Did the June 2024 minutes signal a cut?" in page and "search_documents" in page
    assert 'name="edited-' not in page  # nothing editable in this payload
    assert client.get("/reviews/999999/").status_code == 404


def test_page_decisions_enforce_the_rules_and_report_conflicts(
    make_task: Any, reviewer: Any, make_user: Any, analyst: Any
) -> None:
    task = make_task()
    client = client_for(reviewer)
    response = client.post(f"/reviews/{task.pk}/decide/", {"outcome": "reject", "reason": "  "})
    assert response.status_code == 400 and "Say why you reject it" in response.content.decode()
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"

    response = client.post(f"/reviews/{task.pk}/decide/", {"outcome": "approve"}, HTTP_USER_AGENT="pytest-agent")
    assert response.status_code == 302 and response["Location"] == "/reviews/"
    assert ReviewTask.objects.get(pk=task.pk).state == "approved"

    late = client_for(make_user("reviewer")).post(f"/reviews/{task.pk}/decide/", {"outcome": "reject", "reason": "no"})
    assert late.status_code == 409
    assert "already approved by reviewer@example.test" in late.content.decode()
    assert ReviewDecision.objects.get(task=task).outcome == "approve"

    # Four-eyes on the page: the owner, holding the reviewer role, is refused.
    owner = make_user("reviewer", "analyst")
    own = make_task(subject_owner=owner, requested_by=analyst)
    owner_client = client_for(owner)
    assert "Four-eyes rule" in owner_client.get(f"/reviews/{own.pk}/").content.decode()
    refused = owner_client.post(f"/reviews/{own.pk}/decide/", {"outcome": "approve"})
    assert refused.status_code == 403 and "Four-eyes" in refused.content.decode()


def test_edit_via_the_page_keeps_the_diff(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    client = client_for(reviewer)
    response = client.post(f"/reviews/{task.pk}/decide/", {"outcome": "edit", "edited-body": "INFY closed at [c1]."})
    assert response.status_code == 302
    assert "-TCS closed at [c2]." in ReviewDecision.objects.get(task=task).diff
    page = client.get(f"/reviews/{task.pk}/").content.decode()
    assert "Approved with edits" in page and "-TCS closed at [c2]." in page


def test_api_lists_gets_and_decides_with_the_same_rules(
    make_task: Any, reviewer: Any, make_user: Any, analyst: Any
) -> None:
    task = make_task()
    client = client_for(reviewer)
    listing = client.get("/api/v1/reviews/tasks").json()
    assert listing["count"] == 1 and listing["results"][0]["id"] == task.pk
    assert listing["results"][0]["can_decide"] is True
    detail = client.get(f"/api/v1/reviews/tasks/{task.pk}").json()
    assert detail["payload"]["claims"][1]["recomputed"] == "4,100.00" and detail["decision"] is None
    assert client.get("/api/v1/reviews/tasks/424242").status_code == 404
    assert client.get("/api/v1/reviews/tasks", {"kind": "bogus"}).status_code == 400

    url = f"/api/v1/reviews/tasks/{task.pk}/decide"
    post = lambda c, body: c.post(url, json.dumps(body), content_type="application/json")  # noqa: E731
    assert post(client, {"outcome": "reject"}).json() == {
        "reason": ["Say why you reject it: the requester and the audit log need a reason."]
    }
    assert post(client, {"outcome": "maybe"}).status_code == 400
    assert post(client, {"outcome": "edit", "edited": "not an object"}).status_code == 400
    assert post(client, {"outcome": "edit", "edited": {"title": "x"}}).status_code == 400
    assert client.post(url, "{not json", content_type="application/json").status_code == 400

    owner = make_user("reviewer")
    own = make_task(subject_owner=owner)
    refused = client_for(owner).post(
        f"/api/v1/reviews/tasks/{own.pk}/decide", json.dumps({"outcome": "approve"}), content_type="application/json"
    )
    assert refused.status_code == 403 and "Four-eyes" in refused.json()["detail"]
    assert ReviewTask.objects.get(pk=own.pk).state == "pending"


def test_api_second_decision_gets_409(make_task: Any, reviewer: Any, make_user: Any) -> None:
    task = make_task()
    url = f"/api/v1/reviews/tasks/{task.pk}/decide"
    first = client_for(reviewer).post(url, json.dumps({"outcome": "approve"}), content_type="application/json")
    assert first.status_code == 201 and first.json()["reviewer"] == reviewer.email
    second = client_for(make_user("reviewer")).post(
        url, json.dumps({"outcome": "reject", "reason": "x"}), content_type="application/json"
    )
    assert second.status_code == 409
    assert second.json()["state"] == "approved" and second.json()["decided_by"] == reviewer.email
    done = client_for(reviewer).get(f"/api/v1/reviews/tasks/{task.pk}").json()
    assert done["decision"]["outcome"] == "approve" and done["state"] == "approved"


def test_review_endpoints_are_in_the_openapi_schema(reviewer: Any) -> None:
    schema = client_for(reviewer).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert {
        "/api/v1/reviews/tasks",
        "/api/v1/reviews/tasks/{task_id}",
        "/api/v1/reviews/tasks/{task_id}/decide",
    } <= set(schema["paths"])
    decide = schema["paths"]["/api/v1/reviews/tasks/{task_id}/decide"]["post"]
    assert {"201", "400", "403", "404", "409"} <= set(decide["responses"])
