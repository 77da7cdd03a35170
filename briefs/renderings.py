"""A brief as people see it: its title, text and HTML, the claim rows of the review and brief
pages, the review payload, and the email. Pure functions over a draft, its claims and its
verification (no database), used by ``briefs.services``."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import nh3
from django.template.loader import render_to_string

from briefs.claims import BriefDraft, Claim
from briefs.markup import to_markup
from briefs.render import claim_display, render_text
from briefs.render_html import render_html
from core.formatting import format_date, format_metric, metric_label

_PAGE_TAGS = {"h2", "h3", "p", "section", "ul", "li", "a", "strong", "span", "div", "table", "thead", "tbody",
              "tr", "th", "td", "time"}  # fmt: skip


def verified_ids(verification: dict[str, Any]) -> set[str]:
    return {c["id"] for c in verification.get("checks", []) if c.get("verified")}


def brief_title(draft: BriefDraft, watchlist: str) -> str:
    """``Morning brief: India large caps — data as of 30 Sep 2025`` (the as-of is in every title)."""
    as_of = draft.dateline.as_of if draft.dateline else None
    suffix = f" — data as of {format_date(as_of)}" if as_of else ""
    return f"{draft.title}: {watchlist}{suffix}"[:200]


def clean_page_html(markup: str) -> str:
    """Defence in depth: the renderer escapes feed text already; nh3 keeps only what it emits."""
    return nh3.clean(
        markup,
        tags=_PAGE_TAGS,
        attributes={"*": {"class", "title", "data-ticker", "data-claim", "data-testid", "scope"}, "a": {"href"}},
        link_rel="noopener nofollow",
    )


@dataclass(frozen=True)
class Rendered:
    title: str
    text: str
    html: str


def render_brief(draft: BriefDraft, claims: list[Claim], verification: dict[str, Any], watchlist: str) -> Rendered:
    title = brief_title(draft, watchlist)
    verified = verified_ids(verification)
    return Rendered(
        title=title,
        text=render_text(draft, claims, verified, title=title),
        html=clean_page_html(render_html(draft, claims, verified, title=title)),
    )


def claim_rows(claims: list[Claim], verification: dict[str, Any]) -> list[dict[str, Any]]:
    """The claim table for people: a label beside each key, formatted values (full precision kept
    in ``raw_*`` for tooltips and the export)."""
    checks = {c["id"]: c for c in verification.get("checks", [])}
    rows = []
    for claim in claims:
        check = checks.get(claim.id, {})
        again = check.get("recomputed")
        rows.append(
            {
                "id": claim.id,
                "ticker": claim.ticker,
                "metric": claim.metric,
                "label": metric_label(claim.metric),
                "value": claim_display(claim),
                "raw_value": claim.value,
                "recomputed": format_metric(claim.metric, again, unit=claim.unit) if again is not None else None,
                "raw_recomputed": again,
                "verified": bool(check.get("verified")),
                "reason": check.get("reason", ""),
                "unit": claim.unit,
                "as_of": format_date(claim.as_of),
                "tool": claim.tool,
                "tool_call_id": claim.tool_call_id,
                "inputs": claim.inputs,
                "source": f"compute metrics for {claim.ticker} · {claim.source} · as of {format_date(claim.as_of)}",
            }
        )
    return rows


def staleness(draft: BriefDraft) -> dict[str, Any] | None:
    """What a reviewer is warned about when the data is older than the brief date allows."""
    line = draft.dateline
    if line is None or not line.stale:
        return None
    return {
        "sessions_behind": line.sessions_behind,
        "as_of": format_date(line.as_of),
        "brief_date": format_date(line.brief_date),
        "message": (
            f"Stale data: the newest bar ({format_date(line.as_of)}) is {line.sessions_behind} trading days "
            f"older than this brief ({format_date(line.brief_date)}). The brief says so in its first line."
        ),
    }


def review_payload(
    *, draft: BriefDraft, claims: list[Claim], verification: dict[str, Any], rendered: Rendered, context: dict[str, Any]
) -> dict[str, Any]:
    """What the reviewer sees (``templates/reviews/kinds/_brief_approval.html``) and may edit.
    ``context``: watchlist, brief_id, run_id, partial, errors, note, summary (the verification's)."""
    as_of: dt.date | None = draft.dateline.as_of if draft.dateline else None
    return {
        "brief": {
            "title": rendered.title,
            "watchlist": context["watchlist"],
            "as_of": format_date(as_of) if as_of else "",
            "as_of_iso": as_of.isoformat() if as_of else "",
            "source": ", ".join(sorted({c.source for c in claims})) or "—",
            "body": rendered.text,
            "body_html": rendered.html,
            "partial": context["partial"],
            "stale": staleness(draft),
            "brief_id": context["brief_id"],
            "run_id": context["run_id"],
        },
        "editable": {"body": to_markup(draft, claims)},
        "claims": claim_rows(claims, verification),
        "verification": {
            "status": "verified" if verification.get("ok") else "failed",
            "summary": context["summary"],
        },
        "errors": context["errors"],
        "note": context["note"],
    }


def email_bodies(
    draft: BriefDraft, claims: list[Claim], verification: dict[str, Any], *, title: str, approved_by: str
) -> tuple[str, str]:
    """Plain text and HTML with inline styles (one column, readable at a phone's width)."""
    verified = verified_ids(verification)
    as_of = draft.dateline.as_of if draft.dateline else None
    footer = f"Approved by {approved_by or 'a reviewer'}. Data as of {format_date(as_of)}." if as_of else ""
    text = render_text(draft, claims, verified, title=title) + (f"\n{footer}\n" if footer else "")
    body = render_html(draft, claims, verified, title=title, link_claims=False, email=True)
    html = render_to_string("briefs/email.html", {"title": title, "body": body, "footer": footer})
    return text, html
