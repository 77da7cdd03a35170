"""A small, real portal for the page walk: a watchlist and a portfolio, one RBI MPC minutes PDF
ingested, a chat conversation answered by the real agent, a brief run to the reviewer's gate."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from tests.research.conftest import CORPUS, ingest

MINUTES = CORPUS / "mpc-minutes" / "reserve_bank_of_india_05-06-2024.pdf"


@dataclass
class Portal:
    watchlist: Any
    portfolio: Any
    document: Any
    conversation: Any
    brief: Any
    task: Any


def _brief_to_the_gate(watchlist: Any, analyst: Any) -> Any:
    """Run the brief graph in this process until it waits for a reviewer (as the worker would)."""
    from briefs.agent.graph import build_graph
    from briefs.models import BriefRun
    from core.checkpoint import checkpointer

    run = BriefRun.objects.create(
        watchlist=watchlist, requested_by=analyst, trigger="api", tickers=list(watchlist.tickers), status="running"
    )
    state = {"run_id": run.pk, "user_id": watchlist.owner_id, "watchlist_id": watchlist.pk, "tickers": run.tickers}
    with checkpointer() as saver:
        build_graph(checkpointer=saver).invoke(state, {"configurable": {"thread_id": run.thread_id}})
    run.refresh_from_db()
    return run.brief


def _ask(analyst: Any, question: str, conversation: Any = None) -> Any:
    from research.chat.services import chat_message_post, chat_turn_run

    turn = chat_message_post(user=analyst, question=question, conversation_id=conversation.pk if conversation else None)
    chat_turn_run(turn_id=turn.pk)  # a no-op when the eager task already ran it
    turn.refresh_from_db()
    return turn


def seed_portal(analyst: Any) -> Portal:
    from config.celery import app
    from portfolios.services import portfolio_create, watchlist_create
    from reviews.models import ReviewTask

    watchlist = watchlist_create(
        user=analyst, name="India large caps", tickers=["RELIANCE.NS", "INFY.NS", "TCS.NS", "^NSEI"]
    )
    portfolio, _ = portfolio_create(
        user=analyst,
        name="Core India",
        holdings=[("RELIANCE.NS", 0.5), ("INFY.NS", 0.3), ("HDFCBANK.NS", 0.2)],
        shared_with_team=True,  # the admin walks it too
    )
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        document = ingest(
            analyst,
            MINUTES.name,
            MINUTES.read_bytes(),
            title="RBI MPC Minutes, June 2024",
            issuer="Reserve Bank of India",
            doc_type="mpc_minutes",
            doc_date=dt.date(2024, 6, 21),
            tags=["rbi"],
        )
        first = _ask(analyst, "What policy repo rate did the MPC decide at its June 2024 meeting?")
        _ask(analyst, "What is the price of INFY?", first.conversation)
    finally:
        app.conf.task_always_eager = eager
    brief = _brief_to_the_gate(watchlist, analyst)
    task = ReviewTask.objects.filter(state=ReviewTask.State.PENDING).order_by("-id").first()
    return Portal(watchlist, portfolio, document, first.conversation, brief, task)


def pages_for(role: str, portal: Portal) -> list[tuple[str, str]]:
    """``(slug, path)`` of every page the role reaches from the navigation."""
    common = [
        ("home", "/"),
        ("library", "/research/"),
        ("search", "/research/?q=repo+rate"),
        ("document", f"/research/documents/{portal.document.pk}/"),
        ("chat", "/research/chat/"),
        ("briefs", "/briefs/"),
        ("brief-watchlist", f"/briefs/watchlists/{portal.watchlist.pk}/"),
        ("brief-run", f"/briefs/runs/{portal.brief.run_id}/"),
        ("brief", f"/briefs/{portal.brief.pk}/"),
        ("evaluation", "/evaluation/"),
        ("settings", "/settings/"),
    ]
    conversation = [
        ("conversation", f"/research/chat/{portal.conversation.pk}/"),
        ("trace", f"/research/chat/{portal.conversation.pk}/trace/"),
        # "edit details" on the document's page: its owner (the analyst) and admins.
        ("document-details", f"/research/documents/details/?ids={portal.document.pk}"),
    ]
    market = [
        ("portfolios", "/portfolios/"),
        ("portfolio", f"/portfolios/{portal.portfolio.pk}/"),
        ("ticker", "/portfolios/tickers/TCS.NS/"),
        ("index-ticker", "/portfolios/tickers/%5ENSEI/"),
        ("portfolio-new", "/portfolios/new/"),
        ("watchlist-new", "/portfolios/watchlists/new/"),
    ]
    reviews = [("inbox", "/reviews/"), ("review", f"/reviews/{portal.task.pk}/"), ("audit", "/reviews/audit/")]
    # The admin's walk: the pages an admin sees differently (every area in the navigation, the
    # document's "edit details", the reviews, the Django admin); the rest render as for the
    # analyst and the reviewer, whose walks cover them — a third of the suite's slowest test.
    admin = [common[0], common[3], conversation[2], market[1], common[10], *reviews, ("django-admin", "/admin/")]
    return {"analyst": common + conversation + market, "reviewer": common + reviews, "admin": admin}[role]
