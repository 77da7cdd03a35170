"""A reviewer approves a task in real Chromium: badge, keyboard shortcut, confirmation, audit."""

from typing import Any

import pytest

from reviews.models import ReviewTask
from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reviewer_approves_from_the_inbox_and_the_audit_shows_it(
    page: Any, live_server: Any, reviewer: Any, make_task: Any
) -> None:
    task = make_task(title="IT services brief")
    make_task(kind="chat_escalation", title="RBI minutes question")
    browser_login(page, live_server, reviewer.email)
    badge = page.locator('nav.mainnav a[data-nav="reviews"] [data-testid="reviews-badge"]')
    assert badge.inner_text() == "2"

    page.click('nav.mainnav a[data-nav="reviews"]')
    page.click(f'tr[data-task="{task.pk}"] a')
    assert page.locator("h1").inner_text() == f"#{task.pk} IT services brief"
    assert page.locator('[data-testid="claims"] tbody tr').count() == 2

    # The confirmation is attached by the page's deferred script: wait for it before clicking (a click
    # while the page was still loading submitted unconfirmed on a loaded CI machine).
    page.wait_for_load_state("load")
    # Cancelling the confirmation keeps the task pending.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click('[data-testid="approve"]')
    assert ReviewTask.objects.get(pk=task.pk).state == "pending"

    # The "a" shortcut approves after confirmation.
    messages: list[str] = []

    def accept(dialog: Any) -> None:
        messages.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.keyboard.press("a")
    page.wait_for_url(f"{live_server.url}/reviews/")
    assert messages == [f"Approve task #{task.pk}? The paused run continues with your approval."]
    assert "approved" in page.locator(".flash-success").inner_text()
    assert badge.inner_text() == "1"
    assert ReviewTask.objects.get(pk=task.pk).state == "approved"

    page.click("text=Audit history")
    # A warm worker may already have appended the resume event, so find the decision's row.
    row = page.locator('[data-testid="audit-table"] tbody tr', has_text="review_task.approve").first
    assert "review_task.approve" in row.inner_text()
    assert reviewer.email in row.inner_text()
