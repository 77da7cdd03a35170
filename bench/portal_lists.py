"""Portal lists with 500 rows each: the first page (25 rows) of the library, the reviewer inbox, the
audit history, the briefs list, the chat's conversation sidebar and the home page, rendered through
Django's test client in-process (server time: URL resolution, middleware, queries, template; no
network). Warm (after one load), median and p95 of PAGE_LOADS loads. Target: first page ≤ 150 ms."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from bench._common import median_p95_columns

ROWS = 500
PAGE_LOADS = 20
TARGET_MS = 150.0
MARK = "bench-lists"


def _user() -> Any:
    from django.core.management import call_command

    from core.services import user_ensure

    call_command("migrate", verbosity=0)
    user, _ = user_ensure(email=f"{MARK}@alphadesk.local", roles=["analyst", "reviewer", "admin"], password=None)
    return user


def _documents(owner: Any) -> None:
    from research.models import Document

    have = Document.objects.filter(owner=owner).count()
    Document.objects.bulk_create(
        Document(
            owner=owner,
            title=f"Bench document {i:04d}",
            issuer="Bench issuer",
            doc_type="bench_note",
            doc_date=dt.date(2020, 1, 1) + dt.timedelta(days=i),
            kind="text",
            filename=f"bench-{i}.txt",
            file=f"documents/bench-{i}.txt",
            size_bytes=10,
            content_hash=f"{MARK}-{i:052d}",
            status="done",
            progress=100,
            page_count=3,
            chunk_count=12,
        )
        for i in range(have, ROWS)
    )


def _review_tasks(owner: Any) -> None:
    from django.utils import timezone

    from reviews.models import ReviewTask

    have = ReviewTask.objects.filter(title__startswith=MARK).count()
    ReviewTask.objects.bulk_create(
        ReviewTask(
            kind="brief_approval",
            title=f"{MARK} {i:04d}",
            graph_name="bench",
            thread_id=f"{MARK}-{i}",
            due_at=timezone.now() + dt.timedelta(hours=i % 48),
            payload={"brief": {"watchlist": f"Bench {i % 7}", "as_of": "2025-09-30"}},
        )
        for i in range(have, ROWS)
    )


def _audit(owner: Any) -> None:
    from core.audit import audit_record
    from core.models import AuditEvent

    for i in range(AuditEvent.objects.filter(action="bench.lists").count(), ROWS):
        audit_record(actor=owner, action="bench.lists", before={"n": i, "ok": False}, after={"n": i + 1, "ok": True})


def _briefs(owner: Any) -> None:
    from briefs.models import Brief, BriefRun
    from portfolios.models import Watchlist

    watchlist, _ = Watchlist.objects.get_or_create(owner=owner, name=MARK, defaults={"tickers": ["INFY.NS"]})
    have = Brief.objects.filter(watchlist=watchlist).count()
    runs = BriefRun.objects.bulk_create(  # finished runs: only one may be active per watchlist
        BriefRun(watchlist=watchlist, requested_by=owner, trigger="api", tickers=["INFY.NS"], status="delivered")
        for _ in range(have, ROWS)
    )
    Brief.objects.bulk_create(
        Brief(
            run=run,
            watchlist=watchlist,
            status="approved",
            title=f"Bench brief {have + i:04d}",
            draft={},
            body_text=".",
            body_html="<p>.</p>",
        )
        for i, run in enumerate(runs)
    )


def _conversations(owner: Any) -> None:
    from research.chat.models import Conversation

    have = Conversation.objects.filter(owner=owner).count()
    Conversation.objects.bulk_create(
        Conversation(owner=owner, title=f"Bench conversation {i:04d}") for i in range(have, ROWS)
    )


PAGES = [
    ("library (first 25 of 500 documents)", "/research/"),
    ("library sorted by title", "/research/?lib-sort=title"),
    ("reviewer inbox (25 of 500 pending)", "/reviews/"),
    ("audit history (25 of ≥ 500 events)", "/reviews/audit/"),
    ("briefs list (25 of 500)", "/briefs/"),
    ("chat: conversation sidebar (25 of 500)", "/research/chat/"),
    ("home page", "/"),
]


def run() -> list[dict[str, Any]]:
    from django.test import Client

    user = _user()
    for seed in (_documents, _review_tasks, _audit, _briefs, _conversations):
        seed(user)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    rows = []
    for label, url in PAGES:
        assert client.get(url).status_code == 200, url  # warm: templates compiled, caches filled
        samples = []
        for _ in range(PAGE_LOADS):
            started = time.perf_counter()
            client.get(url)
            samples.append((time.perf_counter() - started) * 1000)
        stats = median_p95_columns(samples)
        rows.append(
            {
                "page": label,
                "n": PAGE_LOADS,
                **stats,
                "target": f"≤ {TARGET_MS:.0f} ms",
                "ok": stats["p95_ms"] <= TARGET_MS,
            }
        )
    return rows
