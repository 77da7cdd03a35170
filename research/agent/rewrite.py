"""The synthesis model's rewrite of the composed answer, and the verification every answer passes.

With a model configured, ``final_answer`` asks it to write the extractive draft as prose citing the
same claims. A rewrite is kept only if every figure in it verifies and it restates the evidence
(see :func:`ungrounded`); an unverified one is asked for once more, and a second failure escalates
the turn with the verified extractive draft for the reviewer. A failed call, an empty reply or an
ungrounded one keeps the extractive draft. Nothing here touches the
database except through ``research.agent.store`` (imported when a check runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.llm import LLMError, LLMProvider, LLMResponse
from research.agent.answer import Composer
from research.agent.prompts import WRITER_SYSTEM, writer_request
from research.agent.question.understand import Understanding, understanding_from_dict
from research.agent.state import ChatState, llm_usage
from research.agent.verify.claims import verify_answer
from research.agent.verify.relevance import assess, assess_market
from research.retrieval.text import tokenize

MAX_DRAFTS = 2  # one regeneration, then escalate
# A rewrite restates the draft: past this share of its content words (and at least
# MIN_NOVEL_WORDS of them) absent from the question, draft, claims and quoted passages, it says
# something the evidence does not — typically an instruction it obeyed from a passage or web page.
MAX_NOVEL_SHARE = 0.5
MIN_NOVEL_WORDS = 3
_REFERENCE = re.compile(r"\[\[c\d+\]\]|\[Source:[^\]]*\]")


@dataclass
class Rewritten:
    """What the rewrite left: the template to show, and what it cost and found.

    ``verification`` is set only when ``template`` is a model draft that verified; otherwise the
    template still has to be checked. ``reply`` is the last model reply (its usage is the step's);
    ``update`` holds the state channels the calls add to (tokens, cost, calls, events);
    ``escalation_reason`` says why the turn needs a reviewer when every draft failed."""

    template: str
    attempts: int = 0
    reply: LLMResponse | None = None
    verification: dict[str, Any] = field(default_factory=dict)
    update: dict[str, Any] = field(default_factory=dict)
    escalation_reason: str = ""

    def add_event(self, event: str, detail: Any) -> None:
        self.update.setdefault("events", []).append({"node": "final_answer", "event": event, "detail": detail})

    def add_usage(self, reply: LLMResponse) -> None:
        for k, v in llm_usage(reply).items():
            self.update[k] = self.update.get(k, 0) + v


def check_answer(state: ChatState, template: str, c: Composer) -> dict[str, Any]:
    """Verify ``template``: every figure traced to its source (the claims, the tool outputs and
    the cited chunks) AND the evidence answering the question (period, document, metric, aspects).
    ``status`` is "verified" only when both hold, established by checks that ran; "unanswered" when
    the figures trace but the evidence does not match the question; "unconfirmed" when the figures
    trace and no check could establish that the document answer answers what was asked (a "nothing
    found" answer, or a figure the question's words do not name); "failed" when a figure does not
    trace."""
    from research.agent import store

    ids = {int(x["chunk_id"]) for x in c.citations} | {int(x["chunk_id"]) for x in c.claims if x.get("chunk_id")}
    ids |= {int(x["chunk_next"]) for x in c.claims if x.get("chunk_next")}  # a table row cut between passages
    figures = verify_answer(
        template,
        c.claims,
        question=state.get("resolved") or state["question"],
        outputs={r["key"]: r.get("output") for r in state.get("results", [])},
        chunk_texts=store.chunk_texts(ids),
        citations=c.citations,
        names=_names(state),
        web_texts=[
            h["snippet"]
            for r in state.get("results", [])
            if r["node"] == "web_search" and r.get("ok")
            for h in (r.get("output") or {}).get("results", [])
        ],
    )
    understood, passages = _understood(state)
    rows = [
        row
        for r in state.get("results", [])
        if r["node"] == "rag_search" and r.get("ok")
        for row in (r.get("output") or {}).get("statement_rows") or []
    ]
    answers = assess(understood, c, passages, rows) if understood is not None else assess_market(c.question, c)
    traced = figures["status"] == "verified"
    status = verdict_status(traced, answers, document_answer=understood is not None)
    return {**figures, "status": status, "figures_traced": traced, "answers": answers}


def verdict_status(traced: bool, answers: dict[str, Any], *, document_answer: bool) -> str:
    """A document answer is verified only when a check that applies established that it answers what
    was asked (``ok`` True and the quantity affirmed); one no check could establish is "unconfirmed":
    shown as found, without the tick. A market or calculator answer is judged by its tool outputs."""
    if not traced:
        return "failed"
    if answers.get("ok") is False:
        return "unanswered"
    if document_answer and not (answers.get("ok") and answers.get("affirmed")):
        return "unconfirmed"
    return "verified"


def _names(state: ChatState) -> list[str]:
    """Names in the tool outputs (instruments, documents): text an answer may repeat with digits."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("name", "document_title", "title") and isinstance(item, str):
                    found.append(item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk([r.get("output") for r in state.get("results", [])])
    return found


def _understood(state: ChatState) -> tuple[Understanding | None, dict[int, dict[str, Any]]]:
    """The question's understanding and the retrieved passages by chunk id (from the rag results)."""
    rag = [r for r in state.get("results", []) if r["node"] == "rag_search" and r.get("ok")]
    if not rag:
        return None, {}
    out = rag[0].get("output") or {}
    passages = {int(p["chunk_id"]): p for r in rag for p in (r.get("output") or {}).get("passages", [])}
    return understanding_from_dict(out.get("understanding") or {}), passages


def ungrounded(text: str, c: Composer) -> str:
    """Why ``text`` is not a restatement of ``c``'s evidence ("" when it is).

    Figures are the verifier's job; this catches words. A rewrite that drops every claim reference
    the draft had, or is mostly words found nowhere in the evidence, did not rewrite the draft —
    it answered something else, e.g. "PWNED" or a role-play asked for by an injected instruction.
    """
    if _REFERENCE.search(c.draft) and not _REFERENCE.search(text):
        return "it cites none of the draft's claims or sources"
    evidence = " ".join(
        [c.question, c.draft]
        + [f"{x['label']} {x['display']}" for x in c.claims]
        + [f"{x['citation']} {x['quote']}" for x in c.citations]
    )
    known = set(tokenize(_REFERENCE.sub(" ", evidence)))
    words = [w for w in tokenize(_REFERENCE.sub(" ", text)) if w.isalpha() and len(w) > 3]
    novel = [w for w in words if w not in known]
    if len(novel) >= MIN_NOVEL_WORDS and len(novel) > MAX_NOVEL_SHARE * len(words):
        return f"{len(novel)} of its {len(words)} words are not in the evidence"
    return ""


def rewrite_answer(state: ChatState, c: Composer, writer: LLMProvider) -> Rewritten:
    """Up to :data:`MAX_DRAFTS` model drafts of ``c``'s answer; the first that verifies is kept."""
    written = Rewritten(template=c.draft)
    request = writer_request(c.question, c.claims, c.citations, c.draft)
    last_check: dict[str, Any] = {}
    for attempt in range(1, MAX_DRAFTS + 1):
        written.attempts = attempt
        try:
            reply = writer.complete(
                system=WRITER_SYSTEM, messages=[{"role": "user", "content": request}], max_tokens=600
            )
        except LLMError as exc:
            written.add_event("llm_error", exc.code)
            return written  # keep the extractive draft
        written.reply = reply
        written.add_usage(reply)
        if not reply.text.strip():
            return written  # nothing written: keep the verified extractive draft
        last_check = check_answer(state, reply.text, c)
        if last_check["figures_traced"] and (reason := ungrounded(reply.text, c)):
            written.add_event("ungrounded_rewrite", reason)
            return written  # it did not restate the evidence: keep the extractive draft
        if last_check["figures_traced"]:
            written.template, written.verification = reply.text, last_check
            return written
    # Every draft had figures that could not be verified: the reviewer sees the extractive draft.
    written.escalation_reason = "the written answer had figures that could not be verified: " + "; ".join(
        last_check["problems"][:3]
    )
    written.add_event("unverified_figures", last_check["problems"][:5])
    return written
