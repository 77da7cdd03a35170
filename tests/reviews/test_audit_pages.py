"""Audit history page, streamed CSV export and the per-object history panel."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client, RequestFactory
from django.utils import timezone

from core.audit import audit_record
from core.models import AuditEvent
from reviews.selectors import audit_event_list
from reviews.services import review_task_decide

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_audit_page_filters_by_actor_action_subject_and_date(make_task: Any, reviewer: Any, analyst: Any) -> None:
    task = make_task()
    review_task_decide(user=reviewer, task_id=task.pk, outcome="reject", reason="c2 mismatch")
    audit_record(actor=analyst, action="watchlist.update", after={"tickers": ["INFY.NS"]})
    client = client_for(reviewer)

    page = client.get("/reviews/audit/").content.decode()
    assert "review_task.reject" in page and "watchlist.update" in page and "review_task.request" in page
    by_actor = client.get("/reviews/audit/", {"actor": "reviewer@"}).content.decode()
    assert "review_task.reject" in by_actor and "watchlist.update" not in by_actor
    by_action = client.get("/reviews/audit/", {"action": "watchlist."}).content.decode()
    assert "watchlist.update" in by_action and "review_task." not in by_action
    by_subject = client.get(
        "/reviews/audit/", {"subject_type": "reviews.reviewtask", "subject_id": task.pk}
    ).content.decode()
    assert "review_task.reject" in by_subject and "watchlist.update" not in by_subject
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    assert "No events match" in client.get("/reviews/audit/", {"date_from": tomorrow}).content.decode()
    partial = client.get("/reviews/audit/", {"action": "watchlist."}, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="event-table">')

    bad = client.get("/reviews/audit/", {"date_from": "yesterday-ish"})
    assert bad.status_code == 400 and "Enter a valid date" in bad.content.decode()


def test_csv_export_streams_the_filtered_events_with_their_hashes(make_task: Any, reviewer: Any, analyst: Any) -> None:
    task = make_task()
    review_task_decide(user=reviewer, task_id=task.pk, outcome="approve")
    audit_record(actor=analyst, action="portfolio.create", after={"name": 'Core, "India"'})
    response = client_for(reviewer).get("/reviews/audit/export.csv", {"action": "review_task."})
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="alphadesk-audit-')
    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    assert [row["action"] for row in rows] == ["review_task.request", "review_task.approve"]
    stored = {e.pk: e for e in AuditEvent.objects.all()}
    for row in rows:
        assert row["row_hash"] == stored[int(row["id"])].row_hash
    assert rows[1]["actor"] == reviewer.email and rows[1]["after"] == '{"reason": "", "state": "approved"}'
    # A value with a comma and quotes survives the round trip.
    everything = client_for(reviewer).get("/reviews/audit/export.csv")
    all_rows = list(csv.DictReader(io.StringIO(everything.getvalue().decode())))
    assert any(row["after"] == '{"name": "Core, \\"India\\""}' for row in all_rows)
    assert client_for(reviewer).get("/reviews/audit/export.csv", {"date_to": "31/31/2024"}).status_code == 400


def test_decision_events_carry_ip_and_user_agent(make_task: Any, reviewer: Any) -> None:
    task = make_task()
    client_for(reviewer).post(
        f"/reviews/{task.pk}/decide/",
        {"outcome": "approve"},
        HTTP_USER_AGENT="Mozilla/5.0 test",
        REMOTE_ADDR="10.1.2.3",
    )
    event = AuditEvent.objects.get(action="review_task.approve")
    assert (event.ip, event.user_agent, event.actor) == ("10.1.2.3", "Mozilla/5.0 test", reviewer)


def test_analysts_see_only_their_own_events_through_the_selector(analyst: Any, reviewer: Any) -> None:
    mine = audit_record(actor=analyst, action="portfolio.create")
    theirs = audit_record(actor=reviewer, action="review_task.approve")
    assert list(audit_event_list(user=analyst)) == [mine]
    # reviewers see every event (including any committed by earlier tests' workers)
    seen = set(audit_event_list(user=reviewer).values_list("pk", flat=True))
    assert {mine.pk, theirs.pk} <= seen and len(seen) == AuditEvent.objects.count()


def test_history_panel_renders_for_any_subject(make_task: Any, reviewer: Any, analyst: Any) -> None:
    task = make_task()
    review_task_decide(user=reviewer, task_id=task.pk, outcome="reject", reason="numbers do not match")
    request = RequestFactory().get("/")
    request.user = reviewer
    html = Template("{% load audit %}{% audit_history subject %}").render(
        Context({"subject": task, "request": request})
    )
    assert 'data-testid="audit-history"' in html
    assert html.index("review_task.reject") < html.index("review_task.request")  # newest first
    assert "numbers do not match" in html
    assert f"subject_type=reviews.reviewtask&amp;subject_id={task.pk}" in html
    # On a page the analyst may open (their brief), the panel shows the reviewer's decision too.
    request.user = analyst
    html = Template("{% load audit %}{% audit_history subject %}").render(
        Context({"subject": task, "request": request})
    )
    assert "review_task.reject" in html and reviewer.email in html
    # The task detail page includes the same panel.
    page = client_for(reviewer).get(f"/reviews/{task.pk}/").content.decode()
    assert 'data-testid="audit-history"' in page and "review_task.reject" in page


def test_nav_badge_costs_one_count_query_for_reviewers(
    make_task: Any, reviewer: Any, analyst: Any, django_assert_num_queries: Any
) -> None:
    from reviews.context_processors import navigation

    make_task()
    make_task()
    request = RequestFactory().get("/")
    request.user = reviewer
    reviewer.refresh_from_db()
    with django_assert_num_queries(2):  # the user's roles, then the COUNT
        assert navigation(request)["reviews_pending_count"] == 2
    request.user = analyst
    assert "reviews_pending_count" not in navigation(request)


def test_admin_lists_audit_and_tasks_read_only(make_task: Any, admin_user: Any) -> None:
    task = make_task()
    client = client_for(admin_user)
    assert client.get("/admin/reviews/auditevent/").status_code == 200
    assert "IT services brief" in client.get("/admin/reviews/reviewtask/").content.decode()
    event = AuditEvent.objects.first()
    assert event is not None
    # No add/delete, and POSTing a change is refused: the log and decisions are not edited here.
    assert client.get("/admin/reviews/auditevent/add/").status_code == 403
    assert client.post(f"/admin/reviews/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.post(f"/admin/reviews/reviewtask/{task.pk}/change/", {"state": "approved"}).status_code == 403
    assert AuditEvent.objects.filter(pk=event.pk).exists()
