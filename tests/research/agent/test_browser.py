"""Browser: ask a question, watch the steps appear, see the verified figure, open the trace, follow
the citation to the passage. Real Chromium, live server, real Celery worker."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pypdf
import pytest

from tests.conftest import ARTIFACTS, browser_login
from tests.research.conftest import MPC_AUG_2024, ingest

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.timeout(240)]


def _answer_first_then_steps(page: Any) -> None:
    """The steps sit in "How this was answered": open while the agent works, folded once it answered."""
    page.wait_for_selector('[data-testid="steps"] li[data-node="planner"]', state="attached", timeout=60_000)
    page.wait_for_selector('[data-testid="answer"]', timeout=90_000)
    assert page.locator('[data-testid="how"]').get_attribute("open") is None  # the answer comes first
    page.click('[data-testid="how"] summary')
    assert page.locator('[data-testid="steps"] li[data-node="planner"]').is_visible()


def _steps_read_in_words(page: Any) -> None:
    """The open steps name what each did, not the graph's keys; shot at both widths."""
    shown = page.locator('[data-testid="steps"]').inner_text()
    assert "Searched the document library" in shown and "rag_search" not in shown
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in ((1440, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator('[data-testid="how"]').scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"chat-steps-{width}.png"))
    page.set_viewport_size({"width": 1440, "height": 900})


def test_ask_watch_steps_open_trace_and_follow_citation(
    page: Any, live_server: Any, celery_worker: Any, analyst: Any
) -> None:
    from config.celery import app

    # The first page of the August 2024 minutes (it states the decision), ingested in-process.
    first_page = pypdf.PdfReader(str(MPC_AUG_2024)).pages[0].extract_text()
    app.conf.task_always_eager = True
    try:
        ingest(
            analyst,
            "mpc-aug-2024-p1.txt",
            first_page.encode(),
            title="RBI MPC Minutes, August 2024",
            issuer="Reserve Bank of India",
            doc_type="mpc_minutes",
            doc_date=dt.date(2024, 8, 22),
            tags=["rbi"],
        )
    finally:
        app.conf.task_always_eager = False

    browser_login(page, live_server, analyst.email)
    page.goto(f"{live_server.url}/research/chat/")
    page.fill('input[name="question"]', "What policy repo rate did the MPC decide at its August 2024 meeting?")
    page.click('.chat-form button[type="submit"]')
    page.wait_for_url("**/research/chat/*/")
    _answer_first_then_steps(page)
    steps = page.locator('[data-testid="steps"] li').evaluate_all("els => els.map(e => e.dataset.node)")
    assert steps[:3] == ["memory_resolver", "planner", "rag_search"] and steps[-1] == "final_answer"
    answer = page.locator('[data-testid="answer"]')
    assert "6.50 per cent" in answer.inner_text()
    _steps_read_in_words(page)
    figure = answer.locator("a.fig.verified").first
    assert figure.inner_text() == "6.50 per cent"
    assert "RBI MPC Minutes, August 2024, p. 1" in answer.locator("a.cite").first.inner_text()

    page.click('[data-testid="trace-link"]')
    # The graph is drawn as SVG by the vendored Mermaid, from the source generated server-side.
    diagram = page.locator('[data-testid="graph-diagram"] svg')
    diagram.wait_for(timeout=30_000)
    texts = "els => els.map(e => e.textContent.trim())"  # SVG elements have no innerText
    labels = set(diagram.locator("g.node").evaluate_all(texts))
    graph_nodes = {"memory_resolver", "planner", "rag_search", "financial_calculator", "document_comparator"}
    graph_nodes |= {"web_search", "market_data", "portfolio_analyzer", "guardrail_check", "final_answer"}
    graph_nodes |= {"human_review", "deliver"}
    assert graph_nodes <= labels, labels
    # Highlighted: the path this turn took (the steps seen above, then deliver).
    visited = set(diagram.locator("g.node.visited").evaluate_all(texts))
    assert visited == set(steps) | {"deliver"}
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator('[data-testid="graph-diagram"]').screenshot(path=str(ARTIFACTS / "chat-trace-graph.png"))
    assert "memory_resolver" in page.locator('[data-testid="mermaid"]').text_content()  # source kept
    timeline = page.locator("table.timeline").first.inner_text()
    assert "rag_search" in timeline and "Searched the document library" in timeline  # the key names the box
    page.locator("table.timeline").first.screenshot(path=str(ARTIFACTS / "chat-trace-steps.png"))
    page.locator('[data-testid="trace-citation"]').first.click()
    page.wait_for_selector(".chunk.target")
    assert "/research/documents/" in page.url
    assert "6.50 per cent" in " ".join(page.locator(".chunk.target").inner_text().split())
