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


# Committed libraries shared by the consecutive modules that use them (see ``_held``): by fixture name,
# the value and how to remove it. Nothing else in the run sees them.
_HELD: dict[str, tuple[Any, Callable[[], None]]] = {}
_USERS: dict[str, set[Any]] = {"demo_library": set(), "apple_10q": set()}  # by fixture: modules using it
_NEXT: list[pytest.Item | None] = [None]  # the test after the one being torn down


def _held(name: str, blocker: Any, load: Callable[[], Any], remove: Callable[[], None]) -> Any:
    """``load()``'s value, loaded once for the run of consecutive modules that ask for ``name``
    (``pytest_collection_modifyitems`` puts them side by side); ``_release`` removes it after the
    last of them: what a module-scoped fixture gives each module, without loading it again."""
    if name not in _HELD:
        with blocker.unblock():
            value = load()

        def unload() -> None:
            with blocker.unblock():
                remove()

        _HELD[name] = (value, unload)
    return _HELD[name][0]


def _release(name: str) -> None:
    """At a module's teardown (its tests' transactions already rolled back, the session's database
    still there): remove the held library unless the next test's module uses it too."""
    following = _NEXT[0]
    # The next test itself, not its module: pytest-django runs a module's database tests apart from
    # its other tests, so a module's tests need not run together, and a library left held for a
    # module whose remaining tests never ask for it again would be seen by every test after them.
    if name in _HELD and (following is None or name not in getattr(following, "fixturenames", ())):
        _HELD.pop(name)[1]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules that use a held library run one after another, where the first of them was."""
    for name in _USERS:
        users = _USERS[name] = {item.path for item in items if name in getattr(item, "fixturenames", ())}
        if len(users) < 2:
            continue
        first = next(i for i, item in enumerate(items) if item.path in users)
        moved = [item for item in items if item.path in users]
        rest = [item for item in items if item.path not in users]
        items[:] = rest[:first] + moved + rest[first:]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    _NEXT[0] = nextitem  # read by _release while the fixtures are torn down


def _owned_library(name: str, blocker: Any, email: str, load: Callable[[Any], Any]) -> Any:
    """A held library of documents owned by the analyst ``email``: ``load(owner)``'s value; removed
    with its owner and the audit rows its uploads wrote."""
    from django.db import connection

    from core.services import user_ensure
    from tests.research.corpus import remove_documents

    def owner() -> Any:
        return user_ensure(email=email, roles=["analyst"], password=None)[0]

    def remove() -> None:
        library_owner = owner()
        remove_documents(library_owner)
        library_owner.delete()
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE reviews_auditevent")  # audit rows refuse DELETE

    return _held(name, blocker, lambda: load(owner()), remove)


@pytest.fixture(scope="module")
def demo_library(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The whole shipped corpus (every MPC minutes and the Annual Report) as team documents, by
    original file stem; loaded once for the consecutive modules that use it (~20 s with the
    embedding cache warm) and removed after the last of them."""
    from tests.research.corpus import load_demo_corpus

    yield _owned_library("demo_library", django_db_blocker, "demo-library@example.test", load_demo_corpus)
    _release("demo_library")


@pytest.fixture(scope="module")
def apple_10q(django_db_setup: Any, django_db_blocker: Any) -> Iterator[list[Any]]:
    """Four shipped filings as team documents, for test_statement_answers.py and
    test_statement_yes_no.py (loaded once for both): Apple's 10-Q to 1 July 2023, eBay's Q1 2023
    release, Adobe's 10-Q to 2 June 2023 and Costco's Q3 fiscal 2023 release, details read from
    their covers at upload; the documents in that order."""
    from tests.research.pdfs import APPLE_10Q, FILINGS

    library = [
        (APPLE_10Q, "Apple Inc. Form 10-Q (Q3 2023)"),
        (FILINGS / "EBAY_2023Q1_EARNINGS.pdf", "eBay Q1 2023 earnings release"),
        (FILINGS / "ADOBE_2022Q2_10Q.pdf", "Adobe Inc. Form 10-Q (Q2 2023)"),
        (FILINGS / "COSTCO_2023Q3_EARNINGS.pdf", "Costco Q3 fiscal 2023 earnings release"),
    ]

    def load(owner: Any) -> list[Any]:
        from config.celery import app

        eager, app.conf.task_always_eager = app.conf.task_always_eager, True
        try:
            return [ingest(owner, path.name, path.read_bytes(), title=title) for path, title in library]
        finally:
            app.conf.task_always_eager = eager

    yield _owned_library("apple_10q", django_db_blocker, "filings-library@example.test", load)
    _release("apple_10q")


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
