"""Research chat pages: conversations, live turns (HTMX polling of the persisted steps), trace drill-down."""

from __future__ import annotations

import re
from typing import Any

from csp.decorators import csp_update
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods

from core.exports import download, html_to_pdf
from core.htmx import HtmxHttpRequest
from core.roles import area_required
from core.tasks import QUEUE_DOWN_NOTICE, queue_unavailable
from research.agent.verify.claims import CLAIM_REF
from research.chat.exports import claim_provenance_text, conversation_markdown, conversation_print_html
from research.chat.models import Turn
from research.chat.selectors import conversation_get, conversation_list, trace_get, turn_get, turn_node_path
from research.chat.services import chat_message_post, chat_turn_cancel

_SOURCE = re.compile(r"\[Source: ([^\]]+)\]")
_CALC = re.compile(r"\[Calculated: ([^\]]+)\]")
_NOTE = re.compile(r"\[Note: ([^\]]+)\]")
_LINK = re.compile(r"\[Link: ([^\]|]+) \| (/[^\]\s]*)\]")  # only links into this site


def _paragraph(text: str) -> str:
    """One paragraph of the (already escaped) answer: a table when every line is a "| … |" row
    (the "|---|" rule line is dropped), else a paragraph."""
    lines = [line.strip() for line in text.strip().split("\n")]
    if len(lines) >= 2 and all(line.startswith("|") and line.endswith("|") for line in lines):
        rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if not set(line) <= set("|-: ")]
        head = "".join(f"<th>{cell}</th>" for cell in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows[1:])
        table = f'<table class="table answer-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        return f'<div class="table-wrap">{table}</div>'
    return f"<p>{text}</p>"


def answer_html(turn: Turn) -> SafeString:
    """The answer with verified figures marked and linked to their provenance, and citations linked
    to the cited passage. Everything is escaped first; only our own markup is added."""
    claims = {c["id"]: c for c in turn.claims}
    urls = {c["citation"]: c["url"] for c in turn.citations}
    html = str(escape(turn.answer))

    def figure(match: re.Match[str]) -> str:
        claim = claims.get(match.group(1))
        if claim is None:
            return match.group(0)
        css = "fig verified" if claim.get("verified") else "fig unverified"
        return str(
            format_html(
                '<a class="{}" href="#claim-{}-{}" title="{}">{}</a>',
                css,
                turn.pk,
                claim["id"],
                claim.get("label", ""),
                claim["display"],
            )
        )

    referenced = set(CLAIM_REF.findall(turn.answer))
    html = CLAIM_REF.sub(figure, html)
    for claim in turn.claims:
        # A quote's figure not already written as a reference: mark it inside the quote (a referenced
        # one is a link already, and a link inside a link breaks).
        if claim.get("kind") == "quote" and claim.get("verified") and claim["id"] not in referenced:
            shown = str(escape(claim["display"]))
            link = format_html(
                '<a class="fig verified" href="#claim-{}-{}" title="{}">{}</a>',
                turn.pk,
                claim["id"],
                claim.get("label", ""),
                claim["display"],
            )
            html = html.replace(shown, str(link), 1)
    html = _SOURCE.sub(
        lambda m: (
            str(format_html('<a class="cite" href="{}">[Source: {}]</a>', urls.get(m.group(1), "#"), m.group(1)))
            if m.group(1) in urls
            else m.group(0)
        ),
        html,
    )
    html = _CALC.sub(lambda m: f'<span class="calc">[Calculated: <code>{m.group(1)}</code>]</span>', html)
    html = _NOTE.sub(lambda m: f'<span class="note muted">{m.group(1)}</span>', html)
    html = _LINK.sub(lambda m: f'<a class="answer-link" href="{m.group(2)}">{m.group(1)}</a>', html)
    paragraphs = "".join(_paragraph(p) for p in html.split("\n\n") if p.strip())
    return mark_safe(paragraphs)  # noqa: S308 — escaped text and format_html fragments  # nosec B308 B703


def _turn_context(turn: Turn) -> dict[str, Any]:
    return {"turn": turn, "steps": list(turn.steps.order_by("seq", "pk")), "answer_html": answer_html(turn)}


@area_required("research")
@require_http_methods(["GET", "POST"])
def chat_index(request: HttpRequest) -> HttpResponse:
    error = ""
    if request.method == "POST":
        try:
            turn = chat_message_post(user=request.user, question=request.POST.get("question", ""))
        except ValidationError as exc:
            error = "; ".join(exc.messages)
        else:
            _notice_if_queue_down(request, turn)
            return redirect("research-chat:conversation", conversation_id=turn.conversation_id)
    context = {**_sidebar_context(request), "error": error}
    return render(request, "research/chat/index.html", context, status=400 if error else 200)


SIDEBAR_PAGE = 25


def _sidebar_context(request: HttpRequest, current: Any = None) -> dict[str, Any]:
    """The conversation sidebar: searched (``?q=``), newest first, 25 a page."""
    query = request.GET.get("q", "")[:200]
    page = Paginator(conversation_list(user=request.user, query=query), SIDEBAR_PAGE).get_page(request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    return {
        "conversations": page,
        "conversation_query": query,
        "sidebar_params": params.urlencode(),
        "current": current,
    }


@area_required("research")
@require_http_methods(["GET"])
def chat_sidebar(request: HttpRequest) -> HttpResponse:
    """The conversation list alone (the sidebar's search and paging swap it in place)."""
    return render(request, "research/chat/_sidebar.html#conversation_list", _sidebar_context(request))


@area_required("research")
@require_http_methods(["GET"])
def chat_conversation(request: HttpRequest, conversation_id: str) -> HttpResponse:
    conversation = conversation_get(user=request.user, conversation_id=conversation_id)
    turns = [_turn_context(t) for t in conversation.turns.order_by("index")]
    context = {**_sidebar_context(request, conversation), "conversation": conversation, "turns": turns}
    return render(request, "research/chat/conversation.html", context)


@area_required("research")
@require_http_methods(["POST"])
def chat_ask(request: HtmxHttpRequest, conversation_id: str) -> HttpResponse:
    conversation = conversation_get(user=request.user, conversation_id=conversation_id)
    try:
        turn = chat_message_post(
            user=request.user, question=request.POST.get("question", ""), conversation_id=conversation.pk
        )
    except ValidationError as exc:
        if request.htmx:
            return HttpResponse(
                format_html('<p class="error" role="alert">{}</p>', "; ".join(exc.messages)), status=400
            )
        turns = [_turn_context(t) for t in conversation.turns.order_by("index")]
        context = {
            **_sidebar_context(request, conversation),
            "conversation": conversation,
            "turns": turns,
            "error": "; ".join(exc.messages),
        }
        return render(request, "research/chat/conversation.html", context, status=400)
    if request.htmx:
        response = render(request, "research/chat/conversation.html#chat_turn", _turn_context(turn))
        if queue_unavailable(turn):
            response.content += format_html('<p class="error" role="alert">{}</p>', QUEUE_DOWN_NOTICE).encode()
        return response
    _notice_if_queue_down(request, turn)
    return redirect("research-chat:conversation", conversation_id=conversation.pk)


def _notice_if_queue_down(request: HttpRequest, turn: Turn) -> None:
    if queue_unavailable(turn):
        messages.warning(request, QUEUE_DOWN_NOTICE)


@area_required("research")
@require_http_methods(["GET"])
def chat_turn(request: HtmxHttpRequest, turn_id: int) -> HttpResponse:
    turn = turn_get(user=request.user, turn_id=turn_id)
    if request.htmx:
        return render(request, "research/chat/conversation.html#chat_turn", _turn_context(turn))
    return redirect(f"{turn.conversation.get_absolute_url()}#turn-{turn.pk}")


@area_required("research")
@require_http_methods(["POST"])
def chat_turn_cancel_view(request: HtmxHttpRequest, turn_id: int) -> HttpResponse:
    error = ""
    try:
        turn = chat_turn_cancel(user=request.user, turn_id=turn_id)
    except ValidationError as exc:
        error = "; ".join(exc.messages)
        turn = turn_get(user=request.user, turn_id=turn_id)
    except PermissionDenied:
        raise
    if request.htmx:
        return render(
            request, "research/chat/conversation.html#chat_turn", {**_turn_context(turn), "cancel_error": error}
        )
    if error:
        messages.error(request, error)
    return redirect("research-chat:conversation", conversation_id=turn.conversation_id)


# Mermaid renders the graph as SVG with its own <style> element and style attributes, and offers
# no nonce; this page alone allows inline styles (scripts stay nonce-only). See docs/operations.md.
@csp_update({"style-src": ["'unsafe-inline'"]})
@area_required("research")
@require_http_methods(["GET"])
def chat_trace(request: HttpRequest, conversation_id: str) -> HttpResponse:
    from research.agent.graph import mermaid

    trace = trace_get(user=request.user, conversation_id=conversation_id)
    # The diagram highlights one turn's path: ?turn=<id>, else the latest turn.
    turns = trace["turns"]
    shown = next((t for t in turns if str(t.pk) == request.GET.get("turn")), turns[-1] if turns else None)
    path = turn_node_path(shown) if shown else []
    return render(
        request,
        "research/chat/trace.html",
        {**trace, "mermaid": mermaid(path), "graph_turn": shown, "graph_path": path},
    )


@area_required("research")
@require_http_methods(["GET"])
def chat_export(request: HttpRequest, conversation_id: str, fmt: str) -> HttpResponse:
    """The conversation as Markdown or PDF, with its figures' provenance and citations."""
    if fmt not in {"md", "pdf"}:
        raise Http404("Export as md or pdf.")
    conversation = conversation_get(user=request.user, conversation_id=conversation_id)
    turns = list(conversation.turns.order_by("index"))
    stem = f"alphadesk-conversation-{str(conversation.pk)[:8]}"
    if fmt == "md":
        text = conversation_markdown(conversation, turns, absolute=request.build_absolute_uri)
        return download(text, filename=f"{stem}.md", content_type="text/markdown; charset=utf-8")
    contexts = []
    for turn in turns:
        for claim in turn.claims:
            claim["provenance"] = claim_provenance_text(claim)
        contexts.append({"turn": turn, "answer_html": answer_html(turn)})
    html = conversation_print_html(conversation, contexts, absolute=request.build_absolute_uri)
    pdf = html_to_pdf(html, base_url=request.build_absolute_uri("/"))
    return download(pdf, filename=f"{stem}.pdf", content_type="application/pdf")
