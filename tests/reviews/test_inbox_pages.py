"""Inbox and audit pages as a reviewer reads them: labelled filters, watchlist and as-of columns,
25 a page, Approve before the long context, and the audit change column as "field: old → new"."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.audit import audit_record
from reviews.models import ReviewTask

pytestmark = pytest.mark.django_db


def _brief_task(title: str, watchlist: str, as_of: str, due_in_hours: float = 4) -> ReviewTask:
    return ReviewTask.objects.create(
        kind=ReviewTask.Kind.BRIEF_APPROVAL,
        title=title,
        graph_name="g",
        thread_id=title,
        due_at=timezone.now() + timedelta(hours=due_in_hours),
        payload={"brief": {"title": title, "watchlist": watchlist, "as_of": as_of, "body": "Body."}},
    )


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_inbox_shows_watchlist_and_as_of_with_labelled_filters(client: Any, reviewer: Any) -> None:
    _brief_task("Morning brief: India", "India large caps", "2025-09-30")
    client.force_login(reviewer)
    html = client.get("/reviews/").content.decode()
    assert "[invalid name]" not in html
    assert ">Sort by <" in html and ">Age <" in html and ">Watchlist <" in html
    row = _text(html.split("data-task=")[1].split("</tr>")[0])
    assert "India large caps" in row and "2025-09-30" in row


def test_inbox_says_when_a_task_is_due_as_the_home_page_does(client: Any, reviewer: Any) -> None:
    soon = _brief_task("Due soon", "India large caps", "2025-09-30", due_in_hours=3.5)
    late = _brief_task("Late", "US tech", "2025-09-30", due_in_hours=-2.5)
    done = _brief_task("Decided", "US tech", "2025-09-30", due_in_hours=-30)
    ReviewTask.objects.filter(pk=done.pk).update(state=ReviewTask.State.EXPIRED, decided_at=timezone.now())
    client.force_login(reviewer)
    html = client.get("/reviews/", {"state": ""}).content.decode()  # any state

    def due(task: ReviewTask) -> str:
        row = html.split(f'data-task="{task.pk}"')[1].split("</tr>")[0]
        return _text(row.split('data-label="Due">')[1].split("</td>")[0]).strip()

    assert due(soon) == "in 3 hours, 29 minutes"
    assert due(late) == "overdue by 2 hours, 30 minutes"
    assert due(done) == "—"  # a decided task is due no longer
    assert f'title="Due {timezone.localtime(soon.due_at):%-d %b %Y, %H:%M}"' in html
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", html)  # no raw timestamp in the table


def test_inbox_filters_by_watchlist_sorts_by_title_and_pages_by_25(client: Any, reviewer: Any) -> None:
    for i in range(27):
        _brief_task(f"Brief {i:02d}", "US tech" if i % 2 else "India large caps", "2025-09-30")
    client.force_login(reviewer)
    first = client.get("/reviews/", {"sort": "title"}).content.decode()
    titles = re.findall(r"#\d+ (Brief \d\d)</a>", first)
    assert titles == [f"Brief {i:02d}" for i in range(25)]
    assert "1–25 of 27 tasks" in _text(first)
    second = client.get("/reviews/", {"sort": "title", "page": 2}).content.decode()
    assert re.findall(r"#\d+ (Brief \d\d)</a>", second) == ["Brief 25", "Brief 26"]
    us = client.get("/reviews/", {"watchlist": "us tech"}).content.decode()
    assert len(re.findall(r"#\d+ Brief \d\d</a>", us)) == 13


def test_approve_comes_before_the_context(client: Any, reviewer: Any) -> None:
    task = _brief_task("Morning brief: India", "India large caps", "2025-09-30")
    client.force_login(reviewer)
    html = client.get(f"/reviews/{task.pk}/").content.decode()
    assert html.index('data-testid="approve"') < html.index('id="context"')


def test_audit_change_column_reads_field_old_new(client: Any, reviewer: Any, analyst: Any) -> None:
    audit_record(
        actor=analyst,
        action="watchlist.update",
        before={"name": "India", "tickers": ["INFY.NS"], "brief_enabled": False, "weight": 0.123456789},
        after={"name": "India", "tickers": ["INFY.NS", "TCS.NS"], "brief_enabled": True, "weight": 0.25},
    )
    client.force_login(reviewer)
    html = client.get("/reviews/audit/").content.decode()
    row = html.split("<code>watchlist.update</code>")[1]
    cell = row.split('<td class="change">')[1].split("</td>")[0]
    change = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell.replace("</li>", "\n")))
    assert "Tickers: INFY.NS → INFY.NS, TCS.NS" in change
    assert "Morning brief: no → yes" in change
    assert "Weight: 0.1235 → 0.25" in change
    assert "Name" not in change  # unchanged fields are not repeated
    assert "{" not in change and "0.123456789" not in change
