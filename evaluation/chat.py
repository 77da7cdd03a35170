"""Running chat cases: ask each turn through the product's own services (as an evaluation user),
read back what was stored, and close any review task the turn opened.

Turns run in this process: ``chat_message_post`` enqueues on commit, and with Celery tasks
executed in-process (:func:`tasks_in_process`) that enqueue *is* the run; the direct call to
``chat_turn_run`` after it is then a no-op ("skipped"), and it is what runs the turn when no commit
happens (inside a test's transaction). Either way no worker elsewhere picks the turn up with other
settings.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import current_app
from django.db.models import Sum

from core.services import user_ensure
from research.agent.verify.claims import render_text
from research.chat.models import Conversation, TraceStep, Turn
from research.chat.services import chat_message_post, chat_turn_cancel, chat_turn_run
from research.models import Chunk, Document
from research.services import UploadFile, document_ingest, document_upload

EVAL_USER = "evaluation@alphadesk.local"


@contextmanager
def tasks_in_process() -> Iterator[None]:
    """Celery tasks enqueued meanwhile run here, synchronously (turns, brief runs, ingestion)."""
    conf = current_app.conf
    before = conf.task_always_eager
    conf.task_always_eager = True
    try:
        yield
    finally:
        conf.task_always_eager = before


def eval_user(case_id: str = "") -> Any:
    """The evaluation's analyst; a case with a private upload or a portfolio gets its own (so no other
    case sees them)."""
    if not case_id:
        email = EVAL_USER
    else:
        email = f"evaluation+{hashlib.sha256(case_id.encode()).hexdigest()[:10]}@alphadesk.local"
    user, _ = user_ensure(email=email, roles=["analyst"], password=None)
    return user


def upload_private(user: Any, name: str, text: str, title: str, doc_date: str | None, doc_type: str) -> Document:
    """A private document of ``user`` (idempotent: the same bytes are the same document)."""
    result = document_upload(
        user=user,
        files=[UploadFile(name=name, data=text.encode())],
        title=title,
        doc_type=doc_type,
        doc_date=dt.date.fromisoformat(doc_date) if doc_date else None,
        visibility=Document.Visibility.PRIVATE,
        tags=["evaluation"],
    )
    if result.rejected:
        raise ValueError(f"{name}: {result.rejected[0][1]}")
    document = (result.created or result.duplicates)[0]
    if document.status != Document.Status.DONE:
        document = document_ingest(document_id=document.pk)
    return document


def portfolio_own(user: Any, name: str, holdings: list[tuple[str, float]]) -> None:
    """``user`` owns a portfolio ``name`` with exactly ``holdings`` (idempotent: a second run finds
    it and sets its holdings again)."""
    from portfolios.models import Portfolio
    from portfolios.services import portfolio_create, portfolio_update

    existing = Portfolio.objects.filter(owner=user, name=name).first()
    if existing is None:
        portfolio_create(user=user, name=name, holdings=holdings)
    else:
        portfolio_update(user=user, portfolio_id=existing.pk, holdings=holdings)


def ask(user: Any, question: str, conversation: Conversation | None) -> Turn:
    """Ask one question (a new conversation, or the next turn of ``conversation``) and run it."""
    turn = chat_message_post(user=user, question=question, conversation_id=conversation.pk if conversation else None)
    chat_turn_run(turn_id=turn.pk)  # "skipped" when the on-commit enqueue already ran it here
    turn.refresh_from_db()
    return turn


def withdraw(user: Any, turn: Turn) -> None:
    """An escalated turn's review task is the evaluation's, not a reviewer's: withdraw it."""
    if turn.status == Turn.Status.ESCALATED:
        chat_turn_cancel(user=user, turn_id=turn.pk)


def _step(step: TraceStep) -> dict[str, Any]:
    outputs = step.outputs if isinstance(step.outputs, dict) else {}
    failed = {"error", "message"} <= set(outputs) or bool(outputs.get("errors"))
    return {
        "node": step.node,
        "tool": step.tool,
        "outputs": outputs,
        "error": failed,
        "note": step.note,
        "latency_ms": step.latency_ms,
    }


def snapshot(turn: Turn) -> dict[str, Any]:
    """The turn as the judge reads it (trace step outputs included)."""
    steps = [_step(s) for s in TraceStep.objects.filter(turn=turn).order_by("seq", "pk")]
    totals = TraceStep.objects.filter(turn=turn).aggregate(i=Sum("input_tokens"), o=Sum("output_tokens"))
    return {
        "turn_id": turn.pk,
        "conversation_id": str(turn.conversation_id),
        "status": turn.status,
        "answered_by": turn.answered_by,
        "question": turn.question,
        "resolved_question": turn.resolved_question,
        "answer": render_text(turn.answer, turn.claims),
        "claims": turn.claims,
        "citations": turn.citations,
        "verification": turn.verification,
        "plan_path": turn.plan_path,
        "llm_calls": turn.llm_calls,
        "tokens": (totals["i"] or 0) + (totals["o"] or 0),
        "cost_usd": turn.cost_usd,
        "latency_ms": turn.latency_ms,
        "guardrail_events": turn.guardrail_events,
        "error": turn.error,
        "steps": steps,
    }


def public(snap: dict[str, Any]) -> dict[str, Any]:
    """What is stored on the case result: the snapshot without the bulky step outputs."""
    steps = [{k: v for k, v in s.items() if k != "outputs"} for s in snap["steps"]]
    return {**{k: v for k, v in snap.items() if k != "steps"}, "steps": steps}


def document_stems(snapshots: list[dict[str, Any]]) -> dict[int, str]:
    """The file stem of every document the turns' steps returned passages or rows of."""
    from evaluation.filings import document_ids

    ids = {i for snap in snapshots for i in document_ids(snap["steps"])}
    return {d.pk: d.filename.split(".")[0] for d in Document.objects.filter(pk__in=ids).only("pk", "filename")}


def chunks_for(snapshots: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The stored chunks the turns cite (and quote claims point at): text, title, page, file stem."""
    ids: set[int] = set()
    for snap in snapshots:
        ids |= {int(c.get("chunk_id") or 0) for c in snap["citations"]}
        ids |= {int(c.get("chunk_id") or 0) for c in snap["claims"] if c.get("chunk_id")}
        ids |= {int(c.get("chunk_next") or 0) for c in snap["claims"] if c.get("chunk_next")}  # a row cut in two
    rows = Chunk.objects.filter(pk__in=ids).select_related("document")
    return {
        c.pk: {
            "text": c.text,
            "title": c.document.title,
            "page": c.page_label,
            "page_number": c.page_number,
            "kind": c.document.kind,
            "stem": c.document.filename.split(".")[0],  # "x.pages.json.xz" and "x.pdf" are both "x"
        }
        for c in rows
    }
