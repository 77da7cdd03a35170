"""Demo data: two paused probe runs waiting in the reviewer inbox (a brief and a chat escalation).

Each task is backed by a real paused ``review_probe`` run on the Postgres checkpointer, so
approving it in the demo really resumes a graph through the worker. Runs once: does nothing
when review tasks already exist. The payloads show the shape briefs (#7) and research (#6) send.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from reviews.models import ReviewTask
from reviews.probe_graph import GRAPH_NAME, probe_run_start
from reviews.services import review_task_request

BRIEF_PAYLOAD: dict[str, Any] = {
    "brief": {
        "title": "Morning brief — IT services watchlist",
        "watchlist": "IT services",
        "as_of": "2024-12-31",
        "source": "snapshot (demo)",
    },
    "editable": {"body": "INFY closed at [c1] and TCS at [c2]. INFY's 20-day volatility is [c3]."},
    "claims": [
        {
            "id": "c1",
            "ticker": "INFY.NS",
            "metric": "close",
            "value": "1,935.10",
            "recomputed": "1,935.10",
            "verified": True,
            "source": "snapshot prices",
        },
        {
            "id": "c2",
            "ticker": "TCS.NS",
            "metric": "close",
            "value": "4,108.45",
            "recomputed": "4,108.45",
            "verified": True,
            "source": "snapshot prices",
        },
        {
            "id": "c3",
            "ticker": "INFY.NS",
            "metric": "volatility_20d",
            "value": "18.2%",
            "recomputed": "18.2%",
            "verified": True,
            "source": "recompute",
        },
    ],
    "verification": {"status": "verified", "summary": "3 of 3 claims recomputed independently and matched."},
}
CHAT_PAYLOAD: dict[str, Any] = {
    "question": "Did the RBI MPC minutes of June 2024 signal a rate cut within two quarters?",
    "reason": "retrieved passages disagree; confidence below the escalation threshold",
    "confidence": 0.41,
    "editable": {"answer": "The minutes do not commit to a cut; two members voted for a 25 bp reduction."},
    "conversation": [
        {"role": "analyst", "content": "Did the RBI MPC minutes of June 2024 signal a rate cut within two quarters?"},
        {"role": "agent", "content": "I found conflicting passages and asked a reviewer to confirm."},
    ],
    "trace": [
        {"node": "retrieve", "tool": "search_documents", "latency_ms": 42, "note": "6 chunks"},
        {"node": "answer", "tool": None, "latency_ms": 5, "note": "confidence 0.41 < 0.6"},
    ],
}


class Command(BaseCommand):
    help = "Create demo review tasks backed by paused probe graph runs (once)."

    def handle(self, *args: Any, **options: Any) -> None:
        if ReviewTask.objects.exists():
            self.stdout.write("Review tasks exist already; no demo tasks added.")
            return
        analyst = get_user_model().objects.filter(email="analyst@alphadesk.local").first()
        for kind, title, payload in (
            (ReviewTask.Kind.BRIEF_APPROVAL, "Morning brief — IT services watchlist", BRIEF_PAYLOAD),
            (ReviewTask.Kind.CHAT_ESCALATION, "RBI June 2024 minutes: rate-cut signal?", CHAT_PAYLOAD),
        ):
            thread_id = probe_run_start(title=title)
            review_task_request(
                requested_by=analyst,
                subject_owner=analyst,
                kind=kind,
                title=title,
                graph_name=GRAPH_NAME,
                thread_id=thread_id,
                payload=payload,
            )
        self.stdout.write("Added 2 demo review tasks (a brief approval and a chat escalation).")
