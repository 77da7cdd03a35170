"""The chat API and pages: validation, scoping, polling, trace, cancel; live partials and markup."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from research.chat.models import Turn
from research.chat.services import chat_turn_run

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_post_returns_the_turn_and_a_poll_url_then_the_trace(analyst: Any) -> None:
    api = client_for(analyst)
    response = api.post("/api/v1/chat", {"question": "What is 2+2?"}, content_type="application/json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["poll_url"].endswith(f"/api/v1/chat/turns/{body['id']}")
    chat_turn_run(turn_id=body["id"])  # what the worker does
    polled = api.get(body["poll_url"]).json()
    assert polled["status"] == "done"
    assert polled["answer"] == "Result: 4.00 [Calculated: 2+2]"
    assert polled["plan_path"] == "arithmetic" and polled["llm_calls"] == 0
    assert [s["node"] for s in polled["steps"]][:2] == ["memory_resolver", "planner"]
    trace = api.get(f"/api/v1/trace/{body['conversation_id']}").json()
    assert trace["totals"]["turns"] == 1 and trace["totals"]["fast_path_share"] == 1.0
    step = next(s for s in trace["turns"][0]["steps"] if s["node"] == "financial_calculator")
    assert step["tool"] == "calculate_financial_metric" and step["outputs"]["result"] == 4.0
    assert step["inputs"] == {"expression": "2+2"} and step["latency_ms"] >= 0


def test_waiting_post_returns_the_answer_when_it_is_ready(analyst: Any) -> None:
    # No worker here: the wait times out and the turn is still queued (202), nothing is lost.
    response = client_for(analyst).post(
        "/api/v1/chat", {"question": "What is 3*3?", "wait": 0.2}, content_type="application/json"
    )
    assert response.status_code == 202 and Turn.objects.get(pk=response.json()["id"]).status == "queued"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "x" * 2001}, "question"),
        ({"question": "ok", "wait": 99}, "wait"),
        ({"question": "ok", "conversation_id": "not-a-uuid"}, "conversation_id"),
        ({}, "question"),
    ],
)
def test_bad_input_is_a_400_with_the_field(analyst: Any, payload: dict[str, Any], field: str) -> None:
    response = client_for(analyst).post("/api/v1/chat", payload, content_type="application/json")
    assert response.status_code == 400 and field in response.json()
    assert not Turn.objects.exists()


def test_other_users_conversations_are_404_and_anonymous_is_refused(analyst: Any, make_user: Any) -> None:
    api = client_for(analyst)
    first = api.post("/api/v1/chat", {"question": "What is 2+2?"}, content_type="application/json").json()
    chat_turn_run(turn_id=first["id"])
    other = client_for(make_user("analyst", email="other@example.test"))
    assert other.get(f"/api/v1/trace/{first['conversation_id']}").status_code == 404
    assert other.get(f"/api/v1/chat/turns/{first['id']}").status_code == 404
    follow = other.post(
        "/api/v1/chat",
        {"question": "and?", "conversation_id": first["conversation_id"]},
        content_type="application/json",
    )
    assert follow.status_code == 404
    assert Client().post("/api/v1/chat", {"question": "hi"}, content_type="application/json").status_code in {401, 403}


def test_one_active_turn_per_conversation_and_cancel(analyst: Any) -> None:
    api = client_for(analyst)
    first = api.post("/api/v1/chat", {"question": "What is 2+2?"}, content_type="application/json").json()
    again = api.post(
        "/api/v1/chat",
        {"question": "And 3+3?", "conversation_id": first["conversation_id"]},
        content_type="application/json",
    )
    assert again.status_code == 400 and "Wait for the current answer" in str(again.json())
    cancelled = api.post(f"/api/v1/chat/turns/{first['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert api.post(f"/api/v1/chat/turns/{first['id']}/cancel").status_code == 400  # already cancelled


def test_pages_render_turn_partial_answer_markup_and_trace(analyst: Any) -> None:
    web = client_for(analyst)
    response = web.post("/research/chat/", {"question": "What is the percentage change from 6.50 to 6.25?"})
    assert response.status_code == 302
    turn = Turn.objects.get()
    page = web.get(response["Location"]).content.decode()
    assert 'hx-trigger="every 400ms"' in page and f'href="/research/chat/turns/{turn.pk}/"' in page
    chat_turn_run(turn_id=turn.pk)
    partial = web.get(f"/research/chat/turns/{turn.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in partial  # finished: polling stops
    assert f'href="#claim-{turn.pk}-c1"' in partial and "−3.85%" in partial  # (6.25-6.50)/6.50 = -3.846 %
    assert "<code>pct_change(6.50, 6.25)</code>" in partial
    # The steps under the answer, as the analyst reads them: what each did, never a graph key.
    steps = re.findall(r'<li data-node="(\w+)"><b>([^<]+)</b>', partial)
    assert steps == [
        ("memory_resolver", "Read the conversation so far"),
        ("planner", "Planned the steps"),
        ("financial_calculator", "Calculated"),
        ("guardrail_check", "Checked the guardrails"),
        ("final_answer", "Wrote and verified the answer"),
    ]
    assert "planned without an LLM: percentage change" in partial and "— figures traced to source" in partial
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", re.sub(r"<[^>]+>", " ", partial.split('data-testid="steps"')[1]))
    trace = web.get(f"/research/chat/{turn.conversation_id}/trace/").content.decode()
    assert "financial_calculator" in trace and "graph TD" in trace and "guardrail_check" in trace
    # The turn's path, highlighted in the diagram source: its steps and then deliver.
    path = "memory_resolver,planner,financial_calculator,guardrail_check,final_answer,deliver"
    assert f"class {path} visited" in trace
    # Mermaid (big) is vendored and loaded on the trace page only.
    assert '<script src="/static/vendor/mermaid-11.17.2/mermaid.min.js">' in trace
    assert "mermaid.min.js" not in page
    assert web.post("/research/chat/", {"question": "  "}).status_code == 400


def test_trace_graph_highlights_the_chosen_turn(analyst: Any) -> None:
    from research.agent.graph import mermaid
    from research.chat.services import chat_message_post

    first = chat_message_post(user=analyst, question="What is 2+2?")
    chat_turn_run(turn_id=first.pk)
    conversation_id = first.conversation_id
    second = chat_message_post(user=analyst, question="What is the price of INFY?", conversation_id=conversation_id)
    chat_turn_run(turn_id=second.pk)
    web = client_for(analyst)
    url = f"/research/chat/{first.conversation_id}/trace/"
    latest = web.get(url).content.decode()
    assert "class memory_resolver,planner,market_data,guardrail_check,final_answer,deliver visited" in latest
    chosen = web.get(f"{url}?turn={first.pk}").content.decode()
    assert "class memory_resolver,planner,financial_calculator,guardrail_check,final_answer,deliver visited" in chosen
    assert f'href="?turn={first.pk}#graph"' in chosen
    # Only real node names reach the diagram source.
    assert mermaid(["planner", "x;click planner call alert(1)"]).endswith("\tclass planner visited\n")
    # No path, nothing highlighted; a path adds exactly the two lines written here by hand.
    plain = mermaid([])
    assert "visited" not in plain and "visited" not in mermaid() and plain.count("planner") >= 2
    assert mermaid(["planner", "planner"]) == (
        plain.rstrip() + "\n\tclassDef visited fill:#ffe08a,stroke:#b26b00,stroke-width:2px\n\tclass planner visited\n"
    )


def test_answer_markup_escapes_user_text(analyst: Any) -> None:
    web = client_for(analyst)
    web.post("/research/chat/", {"question": "<script>alert(1)</script> hello"})
    turn = Turn.objects.get()
    page = web.get(f"/research/chat/{turn.conversation_id}/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_every_node_of_the_graph_has_a_label_in_words() -> None:
    from research.agent.graph import build_graph
    from research.chat.models import STEP_LABELS

    nodes = set(build_graph().get_graph().nodes) - {"__start__", "__end__"}
    assert nodes == set(STEP_LABELS)
    assert all("_" not in label and label[0].isupper() for label in STEP_LABELS.values())
