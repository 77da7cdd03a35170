"""A conversation as Markdown and as print HTML (→ PDF): every question, its answer with the verified
figures in place, the figures' provenance and the cited passages, with links back to the portal."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from core.formatting import metric_label
from research.agent.verify.claims import CLAIM_REF
from research.chat.models import Conversation, Turn


def _provenance(claim: dict[str, Any], absolute: Any) -> str:
    if claim.get("kind") == "quote":
        return f"quoted from [{claim.get('citation', '')}]({absolute(claim.get('url', ''))})"
    if claim.get("kind") == "calc":
        return f"calculated: `{claim.get('expression', '')}`"
    return tool_provenance(claim)


def tool_provenance(claim: dict[str, Any]) -> str:
    """``Market data output · recomputed from daily bars``: the agent step a tool figure was read
    from, by name (its key, ``market_data:0``, is the trace's, not the reader's)."""
    how = {"bars": "recomputed from daily bars", "output_only": "output check only"}.get(claim.get("recompute", ""), "")
    step = str(claim.get("result_key", "")).split(":", 1)[0]
    source = metric_label(step).capitalize() if step else "Tool"
    return f"{source} output" + (f" · {how}" if how else "")


def claim_provenance_text(claim: dict[str, Any]) -> str:
    """Where a figure came from, in words (for the print page; links live in the sources list)."""
    if claim.get("kind") == "quote":
        return f"quoted from {claim.get('citation', '')}"
    return _provenance(claim, lambda path: path)


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _turn_markdown(turn: Turn, absolute: Any) -> list[str]:
    claims = {c["id"]: c for c in turn.claims}
    lines = [f"## {turn.index}. {turn.question}", ""]
    if turn.status != Turn.Status.DONE:
        return [*lines, f"*{turn.get_status_display()}: no answer.*", ""]
    answer = CLAIM_REF.sub(
        lambda m: f"**{claims[m.group(1)]['display']}** [{m.group(1)}]" if m.group(1) in claims else m.group(0),
        turn.answer,
    )
    for claim in turn.claims:  # quoted figures sit verbatim in the text (as the chat page marks them)
        if claim.get("kind") == "quote" and claim.get("verified") and claim["display"] in answer:
            answer = answer.replace(claim["display"], f"**{claim['display']}** [{claim['id']}]", 1)
    if turn.answered_by == "reviewer":
        lines += ["*Answered by a reviewer.*", ""]
    lines += [answer.strip(), ""]
    if turn.claims:
        lines += ["| Ref | What | Value | Provenance | Checked |", "|---|---|---|---|---|"]
        for c in turn.claims:
            checked = "verified" if c.get("verified") else "not verified"
            cells = [c["id"], c.get("label", ""), c.get("display", ""), _provenance(c, absolute), checked]
            lines.append("| " + " | ".join(_md_cell(x) for x in cells) + " |")
        lines.append("")
    if turn.citations:
        lines += ["Sources:", ""]
        lines += [f"- [{c['citation']}]({absolute(c['url'])}) — “{c.get('quote', '')}”" for c in turn.citations]
        lines.append("")
    return lines


def conversation_markdown(conversation: Conversation, turns: list[Turn], *, absolute: Any) -> str:
    """``absolute(path)`` turns a portal path into a full URL (the file leaves the portal)."""
    lines = [
        f"# {conversation.title or 'Conversation'}",
        "",
        f"Exported from AlphaDesk on {timezone.localtime():%Y-%m-%d %H:%M %Z} · "
        f"[open in AlphaDesk]({absolute(conversation.get_absolute_url())})",
        "",
        "Every figure comes from a tool call or a quoted passage and was re-verified before it was shown; "
        "the table under each answer says where each one came from.",
        "",
    ]
    for turn in turns:
        lines += _turn_markdown(turn, absolute)
    return "\n".join(lines).rstrip() + "\n"


def conversation_print_html(conversation: Conversation, turns: list[dict[str, Any]], *, absolute: Any) -> str:
    """The print page the PDF is made from: the same answer HTML the chat page shows."""
    return render_to_string(
        "research/chat/export.html",
        {
            "conversation": conversation,
            "turns": turns,
            "exported_at": timezone.localtime(),
            "portal_url": absolute(conversation.get_absolute_url()),
        },
    )
