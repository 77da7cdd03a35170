"""Chat agent fixtures: the June and August 2024 MPC minutes from the shipped RBI corpus, ingested
through the real services once per module, and a helper that runs a turn the way the worker does."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.research.conftest import CORPUS, ingest

MPC = CORPUS / "mpc-minutes"


@pytest.fixture(scope="module")
def mpc_corpus(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    from config.celery import app
    from core.services import user_ensure
    from research.models import Document

    with django_db_blocker.unblock():
        owner, _ = user_ensure(email="chat-library@example.test", roles=["analyst"], password=None)
        eager = app.conf.task_always_eager
        app.conf.task_always_eager = True
        try:
            docs = {
                "june": ingest(
                    owner,
                    "reserve_bank_of_india_05-06-2024.pdf",
                    (MPC / "reserve_bank_of_india_05-06-2024.pdf").read_bytes(),
                    title="RBI MPC Minutes, June 2024",
                    issuer="Reserve Bank of India",
                    doc_type="mpc_minutes",
                    doc_date=dt.date(2024, 6, 21),
                    tags=["rbi", "monetary-policy"],
                ),
                "august": ingest(
                    owner,
                    "reserve_bank_of_india_06-08-2024.pdf",
                    (MPC / "reserve_bank_of_india_06-08-2024.pdf").read_bytes(),
                    title="RBI MPC Minutes, August 2024",
                    issuer="Reserve Bank of India",
                    doc_type="mpc_minutes",
                    doc_date=dt.date(2024, 8, 22),
                    tags=["rbi", "monetary-policy"],
                ),
            }
        finally:
            app.conf.task_always_eager = eager
        yield docs
        for document in Document.objects.filter(owner=owner):
            document.file.delete(save=False)
        Document.objects.filter(owner=owner).delete()
        owner.delete()
        # The uploads were audited and audit rows refuse DELETE; TRUNCATE (what a flush does) keeps
        # later tests that count audit events independent of this module's committed fixture.
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE reviews_auditevent")


@pytest.fixture(scope="module")
def demo_library(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The whole shipped corpus (every MPC minutes and the Annual Report) as team documents, for
    one module; by original file stem. Loading takes ~20 s with the embedding cache warm."""
    from django.db import connection

    from core.services import user_ensure
    from tests.research.corpus import load_demo_corpus, remove_documents

    with django_db_blocker.unblock():
        owner, _ = user_ensure(email="demo-library@example.test", roles=["analyst"], password=None)
        yield load_demo_corpus(owner)
        remove_documents(owner)
        owner.delete()
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE reviews_auditevent")  # audit rows refuse DELETE


@pytest.fixture
def ask(analyst: Any, django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """``ask(question, conversation=None)`` → the finished turn, run in-process as the worker would
    (the on-commit enqueue is captured, not executed)."""
    from research.chat.services import chat_message_post, chat_turn_run

    def run(question: str, conversation: Any = None, user: Any = None) -> Any:
        with django_capture_on_commit_callbacks(execute=False):
            turn = chat_message_post(
                user=user or analyst, question=question, conversation_id=conversation.pk if conversation else None
            )
        chat_turn_run(turn_id=turn.pk)
        turn.refresh_from_db()
        return turn

    return run


def thread_state(thread_id: str) -> dict[str, Any]:
    """The latest checkpointed graph state of a thread ({} when it has none)."""
    from core.checkpoint import checkpointer
    from research.agent.graph import build_graph

    with checkpointer() as saver:
        return dict(build_graph(checkpointer=saver).get_state({"configurable": {"thread_id": thread_id}}).values)


@pytest.fixture(scope="module")
def filings_library(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The ten SEC filings of the filings golden set (``data/filings/manifest.json``) uploaded as PDFs
    by a team member and ingested, for one module; by file stem."""
    from django.db import connection

    from core.services import user_ensure
    from tests.research.corpus import load_filings, remove_documents

    with django_db_blocker.unblock():
        owner, _ = user_ensure(email="filings-library@example.test", roles=["analyst"], password=None)
        yield load_filings(owner)
        remove_documents(owner)
        owner.delete()
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE reviews_auditevent")  # audit rows refuse DELETE
