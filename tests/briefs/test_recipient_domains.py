"""An approved brief is mailed only inside BRIEF_RECIPIENT_DOMAINS, checked again at delivery (the
allow-list may have narrowed since the watchlist was saved)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.briefs.test_delivery_once import _approve, at_the_gate  # noqa: F401  (the run at its gate)

pytestmark = pytest.mark.django_db(transaction=True)


def test_delivery_mails_only_recipients_inside_the_allowed_domains(
    at_the_gate: Any,  # noqa: F811
    watchlist: Any,
    reviewer: Any,
    settings: Any,
) -> None:
    from django.core import mail

    from briefs.models import BriefDelivery, BriefRun
    from reviews.services import review_task_resume_run

    watchlist.recipients = ["pm@alphadesk.example", "friend@elsewhere.test"]
    watchlist.save()
    run, task = at_the_gate()
    settings.BRIEF_RECIPIENT_DOMAINS = ["alphadesk.example"]
    _approve(task, reviewer)
    assert review_task_resume_run(task_id=task.pk) == "done"
    assert [m.to for m in mail.outbox] == [["pm@alphadesk.example"]]
    assert BriefDelivery.objects.get(brief__run=run).recipients == ["pm@alphadesk.example"]
    assert BriefRun.objects.get(pk=run.pk).status == "delivered"
