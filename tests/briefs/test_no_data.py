"""A run with no figure for any of its tickers ends "no data": no brief, no review task (so nothing
reaches a reviewer as verified), the reasons on the run, and the watchlist's owner is told."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from tests.briefs.test_pipeline import _run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_watchlist_whose_only_ticker_fails_ends_with_no_data(watchlist: Any, analyst: Any, client: Any) -> None:
    from briefs.models import Brief, BriefStep
    from core.models import AuditEvent
    from reviews.models import ReviewTask

    watchlist.tickers = ["ZZZZ.NS"]
    watchlist.save()
    run, values = _run(watchlist, analyst)
    assert run.status == "no_data" and run.finished_at is not None
    assert values["outcome"] == "no_data" and values["claims"] == []
    assert run.note.startswith("No data: no figure could be computed for any ticker on the watchlist")
    assert "ZZZZ.NS: No instrument called ZZZZ.NS is known" in run.note
    assert not Brief.objects.filter(run=run).exists()
    assert not ReviewTask.objects.filter(thread_id=run.thread_id).exists()
    nodes = list(BriefStep.objects.filter(run=run).values_list("node", flat=True))
    assert "verifier" not in nodes and "gate" not in nodes and nodes[-1] == "writer"
    # The owner is told, with the reason and a link to the run.
    assert len(mail.outbox) == 1
    notice = mail.outbox[0]
    assert (
        notice.to == [watchlist.owner.email] and notice.subject == "[AlphaDesk] No brief for India large caps: no data"
    )
    assert "ZZZZ.NS" in notice.body and f"/briefs/runs/{run.pk}/" in notice.body
    event = AuditEvent.objects.get(action="brief_run.no_data")
    assert event.after is not None and event.after["owner_notified"] is True
    # The run page says so in words.
    client.force_login(analyst)
    page = client.get(f"/briefs/runs/{run.pk}/").content.decode()
    assert "No data" in page and "Unknown ticker" in page and "{{c" not in page
    assert "Every figure" not in page
