"""What the chat graph's nodes read from and write to the database: trace steps, the turn's
outcome, the escalation review task, the acting user, cited chunks and tool calls.

Imported lazily by the nodes (never when the graph is imported). Every write here is safe to
repeat, because nodes before an ``interrupt()`` run again when a paused run resumes: trace steps
are appended, the turn is updated (never inserted) and the review task is requested idempotently.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from core.llm import LLMResponse
from core.tools import call_tool
from research.agent.question.library import LibDoc
from research.agent.state import GRAPH_NAME, ChatState
from research.chat.models import TraceStep, Turn
from research.chat.selectors import turn_memory
from research.models import Chunk
from reviews.services import review_task_request

T = TypeVar("T")

_JSON_FIELDS = {"inputs", "outputs"}


def record_step(state: ChatState, node: str, *, started: float, llm: LLMResponse | None = None, **fields: Any) -> None:
    """Persist one trace step of the turn (the trace page and the live chat read these rows).

    ``started`` is the node's ``time.perf_counter()`` start; ``llm`` the model reply whose tokens
    and cost the step carries; ``fields`` are TraceStep columns (inputs/outputs made JSON-safe)."""
    turn_id = state.get("turn_id")
    if not turn_id:
        return
    if llm is not None:
        fields = {
            "input_tokens": llm.input_tokens,
            "output_tokens": llm.output_tokens,
            "cost_usd": llm.cost_usd,
        } | fields
    seq = TraceStep.objects.filter(turn_id=turn_id).count() + 1
    TraceStep.objects.create(
        turn_id=turn_id,
        seq=seq,
        node=node,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        **{k: json.loads(json.dumps(v, default=str)) if k in _JSON_FIELDS else v for k, v in fields.items()},
    )


def cancel_requested(state: ChatState) -> bool:
    """Whether the analyst asked to cancel this turn (checked between steps)."""
    turn_id = state.get("turn_id")
    if not turn_id:
        return False
    return Turn.objects.filter(pk=turn_id, cancel_requested=True).exists()


def memory_from_turns(turn_id: int) -> list[dict[str, Any]]:
    """The memory window rebuilt from the Turn rows of the conversation before ``turn_id``."""
    return turn_memory(turn_id=turn_id, size=settings.AGENT_MEMORY_TURNS)


def run_tool(state: ChatState, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a registry tool as the turn's user; the outcome as a result row (never raises)."""
    outcome = call_tool(tool, args, user=get_user_model().objects.get(pk=state["user_id"]))
    return {
        "tool": tool,
        "ok": outcome.ok,
        "args": args,
        "output": outcome.as_dict() if outcome.ok else None,
        "error": outcome.as_dict() if not outcome.ok else None,
        "latency_ms": outcome.latency_ms,
    }


# What every turn reads afresh but changes only with the library: kept per process for a few seconds
# per (what, user, …, corpus version), so a conversation's turns do not each read it again.
_KEPT: dict[tuple[Any, ...], tuple[float, Any]] = {}
_KEPT_SECONDS = 30.0


def _kept(key: tuple[Any, ...], load: Callable[[], T]) -> T:
    """``load()``, or what it gave for ``key`` at this corpus version less than ``_KEPT_SECONDS`` ago
    (the seconds bound a change of who may see a document, which bumps no version)."""
    from research.retrieval.bm25 import corpus_version

    full = (*key, corpus_version())
    hit = _KEPT.get(full)
    if hit is not None and time.monotonic() - hit[0] < _KEPT_SECONDS:
        return cast(T, hit[1])
    value = load()
    if len(_KEPT) > 512:
        _KEPT.clear()
    _KEPT[full] = (time.monotonic(), value)
    return value


def library(state: ChatState) -> list[LibDoc]:
    """The documents the turn's user can see, as question understanding reads them (every turn of a
    conversation asks: kept, ``_kept``)."""
    from research.selectors import document_index

    def load() -> list[LibDoc]:
        user = get_user_model().objects.get(pk=state["user_id"])
        return [LibDoc(**row) for row in document_index(user=user)]

    return _kept(("library", int(state["user_id"])), load)


def document_gives_figure(state: ChatState, document_id: int, phrases: tuple[str, ...]) -> bool:
    """Whether a passage of the document (one the turn's user may see) gives a figure in per cent
    for any of ``phrases`` in the same sentence after it ("the reverse repo rate ... remains
    unchanged at 3.35 per cent"; a remark that names it with no figure does not count)."""
    from research.selectors import document_passages

    user = get_user_model().objects.get(pk=state["user_id"])
    for phrase in phrases:
        figure = re.compile(re.escape(phrase) + r"[^.]{0,120}?\d+(?:\.\d+)?\s*(?:per cent|%)", re.I)
        passages = document_passages(user=user, document_id=document_id, containing=phrase)
        if any(figure.search(p.chunk.text) for p in passages):
            return True
    return False


def table_passages(state: ChatState, document_id: int) -> list[dict[str, Any]]:
    """The first passage of a document that holds a member/vote table, as the search tool returns
    passages ([] when it has none): search ranks such a run of names poorly, so it is looked up."""
    from research.agent.text.tables import vote_tables
    from research.selectors import document_passages
    from research.tools import passage_out

    user = get_user_model().objects.get(pk=state["user_id"])
    for passage in document_passages(user=user, document_id=document_id, containing="vote"):
        if vote_tables(passage.chunk.text):
            return [passage_out(passage, user).model_dump(mode="json")]
    return []


def statement_passages(state: ChatState, document_id: int) -> list[dict[str, Any]]:
    """Every passage of a document of members' statements (the minutes), in order, as the search
    tool returns passages; [] for a document with no "Statement by" heading (one query). Every
    question about a document asks (tool_nodes._complete), so it is kept (``_kept``), and each
    caller gets its own copies."""
    from research.selectors import document_passages
    from research.tools import passage_out

    def load() -> tuple[dict[str, Any], ...]:
        user = get_user_model().objects.get(pk=state["user_id"])
        # The heading's own case, as members.STATEMENT_BY reads it.
        if not document_passages(user=user, document_id=document_id, containing="Statement by", match_case=True):
            return ()
        return tuple(
            passage_out(p, user).model_dump(mode="json") for p in document_passages(user=user, document_id=document_id)
        )

    return [dict(p) for p in _kept(("statements", int(state["user_id"]), document_id), load)]


def statement_rows(state: ChatState, question: str, document_ids: list[int]) -> list[dict[str, Any]]:
    """The statement table rows a statement question may need, from ``document_ids`` (best first):
    rows of the concepts it names and of the lines it names word for word, as JSON-safe dicts with
    their citation and link ([] when the question asks nothing of a statement)."""
    from research.agent.question.statements import parse_ask, prefer_named, wanted
    from research.selectors import statement_rows_of

    ask = parse_ask(question)
    if ask is None or not document_ids:
        return []
    user = get_user_model().objects.get(pk=state["user_id"])
    found = statement_rows_of(user=user, document_ids=document_ids)
    titles = {r.document_id: r.document.title for r in found}
    given = [(doc, titles[doc]) for doc in document_ids if doc in titles]
    rank = {doc: i for i, doc in enumerate(prefer_named(question, given))}
    found.sort(key=lambda r: (rank[r.document_id], r.ordinal))
    rows = wanted(ask, question, [_row_dict(r, i) for i, r in enumerate(found)])
    _quote_split_rows(rows)
    return rows


def _quote_split_rows(rows: list[dict[str, Any]]) -> None:
    """A row cut between two passages is quoted as far as the first passage holds it."""
    split = [r for r in rows if r["chunk_next"]]
    texts = chunk_texts({r["chunk_id"] for r in split})
    for row in split:
        words = row["line"].split(" ")
        text = " ".join(texts.get(row["chunk_id"], "").split())
        row["quote"] = next((" ".join(words[:n]) for n in range(len(words), 0, -1) if " ".join(words[:n]) in text), "")


def _row_dict(row: Any, order: int) -> dict[str, Any]:
    base = reverse("research:document", args=[row.document_id])
    return {
        "row_id": row.pk,
        "order": order,
        "document_id": row.document_id,
        "document_title": row.document.title,
        "chunk_id": row.chunk_id,
        "chunk_next": row.chunk_next_id,
        "quote": row.line,
        "citation": row.citation,
        "url": f"{base}?page={row.page_number}&chunk={row.chunk_id}#chunk-{row.chunk_id}",
        "page": row.page_label,
        "page_number": row.page_number,
        "statement": row.statement,
        "caption": row.caption,
        "section": row.section,
        "title": row.label,  # "title": a name the answer may repeat with its digits (verifier)
        "label": row.label,
        "label_key": row.label_key,
        "line": row.line,
        "unit": row.unit,
        "cells": [dict(cell, name=cell["label"]) for cell in row.cells],
    }


def portfolios(state: ChatState) -> list[tuple[int, str]]:
    """The saved portfolios the turn's user may see: (id, name), their own first."""
    from portfolios.selectors import portfolio_list

    user = get_user_model().objects.get(pk=state["user_id"])
    rows = portfolio_list(user=user).values_list("id", "name", "owner_id")
    return [(pid, name) for pid, name, owner in sorted(rows, key=lambda r: (r[2] != user.pk, r[0]))]


def chunk_texts(ids: set[int]) -> dict[int, str]:
    """The text of each cited chunk, by id (what quote claims are checked against)."""
    return dict(Chunk.objects.filter(pk__in=ids).values_list("pk", "text"))


def turn_persist(state: ChatState, *, status: str, finished: bool = True, **extra: Any) -> None:
    """Write the run's outcome and totals onto the turn (repeatable: an update, not an insert)."""
    turn = Turn.objects.get(pk=state["turn_id"])
    totals = TraceStep.objects.filter(turn=turn).aggregate(
        i=Sum("input_tokens"), o=Sum("output_tokens"), c=Sum("cost_usd")
    )
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": status,
        "resolved_question": state.get("resolved", ""),
        "answer": state.get("answer", ""),
        "claims": state.get("claims", []),
        "citations": state.get("citations", []),
        "figures": state.get("figures", []),
        "subjects": state.get("subjects", []),
        "answered_by": state.get("answered_by", "agent"),
        "plan_path": state.get("plan_path", "") or "none",
        "llm_calls": state.get("llm_calls", 0),
        "input_tokens": totals["i"] or 0,
        "output_tokens": totals["o"] or 0,
        "cost_usd": totals["c"] or 0.0,
        "confidence": state.get("confidence"),
        "verification": state.get("verification", {}),
        "guardrail_events": state.get("events", []),
        **extra,
    }
    if finished:
        fields.update(finished_at=now, latency_ms=round((now - turn.created_at).total_seconds() * 1000, 1))
    Turn.objects.filter(pk=turn.pk).update(**fields)


def review_open(state: ChatState, draft: str) -> int:
    """Open the turn's ``chat_escalation`` review task and mark the turn escalated; the task's id.

    Idempotent on the turn (``request_key``): the node runs again on resume and gets the same task."""
    turn = Turn.objects.select_related("conversation").get(pk=state["turn_id"])
    steps = TraceStep.objects.filter(turn=turn).order_by("seq")
    task = review_task_request(
        requested_by=turn.conversation.owner,
        kind="chat_escalation",
        title=f"Chat: {state['question'][:150]}",
        graph_name=GRAPH_NAME,
        thread_id=state["thread_id"],
        request_key=f"turn-{turn.pk}",
        subject=turn.conversation,
        subject_owner=turn.conversation.owner,
        payload={
            "question": state["question"],
            "resolved_question": state.get("resolved", ""),
            "reason": state.get("escalation_reason", ""),
            "confidence": round(float(state.get("confidence", 0.0) or 0.0), 3),
            "conversation": [
                {"role": role, "content": text}
                for t in state.get("memory", [])
                for role, text in (("user", t["question"]), ("assistant", t["answer"][:500]))
            ],
            "trace": [{"node": s.node, "tool": s.tool, "latency_ms": s.latency_ms, "note": s.note} for s in steps],
            "editable": {"answer": draft or "(no draft: the agent found nothing it could verify)"},
        },
    )
    turn_persist(state, status=Turn.Status.ESCALATED, review_task_id=task.pk, finished=False)
    return int(task.pk)
