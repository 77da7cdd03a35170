"""Running the research golden set (``evaluation/suites/research_golden.json``) and judging answers.

A case is one conversation: optional setup (an uploaded note of the asking analyst, a saved
portfolio), then its turns. A turn passes when its outcome is the expected one (answered,
escalated, no_document), its rendered answer contains every expected figure (whitespace
normalised, "–" = "-"), some citation names the expected document (file stem) on the expected
printed page (or on one of ``also_pages``, where the document states the same fact again), and it
contains every expected ``contains`` text. Expected values were written by
hand from the documents (each case's ``source`` says where), never from this code's output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "evaluation" / "suites" / "research_golden.json"
OUTCOMES = {"answered", "escalated", "no_document"}


def load_suite() -> dict[str, Any]:
    suite: dict[str, Any] = json.loads(GOLDEN.read_text())
    return suite


@dataclass
class TurnResult:
    case: str
    index: int
    ask: str
    problems: list[str] = field(default_factory=list)
    answer: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _flat(text: str) -> str:
    # Dashes are typography: answers write a negative figure with U+2212 ("−18.36%"), as the pages do.
    return " ".join(text.replace("–", "-").replace("—", "-").replace("−", "-").split())


def outcome_of(turn: Any) -> str:
    if turn.status == "escalated":
        return "escalated"
    answers = (turn.verification or {}).get("answers") or {}
    return "no_document" if answers.get("outcome") == "no_document" else "answered"


def _why(turn: Any) -> str:
    """Why a turn ended as it did: the escalation's reason, else its status."""
    from reviews.models import ReviewTask

    task = ReviewTask.objects.filter(pk=turn.review_task_id).first() if turn.review_task_id else None
    return str(task.payload.get("reason")) if task is not None else turn.status


def judge(turn: Any, expect: dict[str, Any], stems: dict[int, str]) -> tuple[list[str], str]:
    """What is wrong with ``turn`` against ``expect`` (empty: it passes), and its rendered answer."""
    from research.agent.verify.claims import render_text

    text = render_text(turn.answer, turn.claims)
    flat = _flat(text)
    problems: list[str] = []
    got = outcome_of(turn)
    if got != expect.get("outcome", "answered"):
        problems.append(f"outcome {got} (expected {expect.get('outcome')}): {turn.error or _why(turn)}")
    for figure in expect.get("figures") or []:
        if _flat(figure) not in flat:
            problems.append(f"figure {figure} missing")
    for snippet in expect.get("contains") or []:
        if snippet.lower() not in flat.lower():
            problems.append(f"text {snippet!r} missing")
    if expect.get("document"):
        cited = [(stems.get(int(c.get("document_id") or 0), "?"), str(c.get("page"))) for c in turn.citations]
        # "page" may list the pages that each state the fact (as the evaluation judge reads it).
        page = expect["page"] if isinstance(expect["page"], list) else [expect["page"]]
        pages = [*(str(p) for p in page), *(str(p) for p in expect.get("also_pages") or [])]
        if not any((expect["document"], page) in cited for page in pages):
            problems.append(f"cites {cited[:3] or 'nothing'}, expected {expect['document']} p.{'/'.join(pages)}")
    return problems, text


def stem_of(filename: str) -> str:
    return Path(filename).name.split(".")[0]


class Runner:
    """Runs cases in-process, the way the worker runs a turn (the enqueue on commit is skipped)."""

    def __init__(self, make_user: Any, capture: Any, library: dict[str, Any]) -> None:
        self.make_user = make_user
        self.capture = capture
        self.stems = {doc.pk: stem for stem, doc in library.items()}

    def ask(self, user: Any, question: str, conversation_id: Any) -> Any:
        from research.chat.services import chat_message_post, chat_turn_run

        with self.capture(execute=False):
            turn = chat_message_post(user=user, question=question, conversation_id=conversation_id)
        chat_turn_run(turn_id=turn.pk)
        turn.refresh_from_db()
        return turn

    def setup(self, case: dict[str, Any], user: Any) -> dict[int, str]:
        """The case's setup for ``user``; the stems of documents it added."""
        from portfolios.services import portfolio_create
        from research.services import UploadFile, document_ingest, document_upload

        stems = dict(self.stems)
        setup = case.get("setup") or {}
        if setup.get("upload_note"):
            name = setup.get("upload_name") or "note.md"
            with self.capture(execute=False):
                result = document_upload(
                    user=user,
                    files=[UploadFile(name=name, data=setup["upload_note"].encode())],
                    title=setup.get("upload_title", ""),
                    visibility="private",
                )
            document = document_ingest(document_id=result.created[0].pk)
            stems[document.pk] = stem_of(name)
        if setup.get("portfolio"):
            spec = setup["portfolio"]
            portfolio_create(user=user, name=spec["name"], holdings=[tuple(h) for h in spec["holdings"]])
        return stems

    def run(self, case: dict[str, Any], number: int) -> list[TurnResult]:
        user = self.make_user("analyst", email=f"golden-{number}@example.test")
        stems = self.setup(case, user)
        results = []
        conversation = None
        for i, spec in enumerate(case["turns"], start=1):
            result = TurnResult(case["id"], i, spec["ask"])
            try:
                turn = self.ask(user, spec["ask"], conversation)
            except Exception as exc:  # a crash is a failed answer with its reason, not a stopped suite
                result.problems.append(f"raised {type(exc).__name__}: {exc}")
                results.append(result)
                break
            conversation = turn.conversation_id
            result.problems, result.answer = judge(turn, spec["expect"], stems)
            results.append(result)
        return results
