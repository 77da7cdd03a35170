"""Read-only MCP resources: the latest approved brief of each watchlist the user may see."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections
from django.http import Http404

from core.audit import audit_record

URI_TEMPLATE = "alphadesk://briefs/watchlist/{watchlist_id}/latest"
_URI = re.compile(r"^alphadesk://briefs/watchlist/(\d+)/latest$")


class ResourceMissing(LookupError):
    """No such resource for this user (unknown, not visible, or no approved brief yet)."""


@dataclass(frozen=True)
class BriefResource:
    uri: str
    name: str
    description: str


def _latest_approved(user: Any, watchlist_id: int) -> Any:
    from briefs.models import Brief
    from briefs.selectors import brief_list

    return (
        brief_list(user=user, watchlist_id=watchlist_id)
        .filter(status=Brief.Status.APPROVED)
        .order_by("-created_at", "-id")
        .first()
    )


def brief_resources(*, user: Any) -> list[BriefResource]:
    """One resource per visible watchlist that has an approved brief."""
    from briefs.models import Brief
    from briefs.selectors import brief_list

    try:
        approved = brief_list(user=user).filter(status=Brief.Status.APPROVED).order_by("watchlist_id", "-created_at")
        latest: dict[int, Any] = {}
        for brief in approved:
            latest.setdefault(brief.watchlist_id, brief)
        return [
            BriefResource(
                uri=URI_TEMPLATE.format(watchlist_id=wid),
                name=f"Latest approved brief: {brief.watchlist.name}",
                description=f"{brief.title} (as of {brief.as_of}, approved by {brief.decided_by or 'a reviewer'})",
            )
            for wid, brief in latest.items()
        ]
    finally:
        close_old_connections()


def brief_resource_read(*, user: Any, uri: str) -> str:
    """The brief as JSON: verified text, claims with their verification, approval. Audited."""
    try:
        match = _URI.match(uri)
        if match is None:
            raise ResourceMissing(f"Unknown resource {uri!r}; expected {URI_TEMPLATE}.")
        watchlist_id = int(match.group(1))
        try:
            brief = _latest_approved(user, watchlist_id)
        except Http404:
            brief = None
        if brief is None:
            raise ResourceMissing("No approved brief for that watchlist (or you may not see it).")
        audit_record(actor=user, action="mcp.resource_read", subject=brief, after={"uri": uri})
        return json.dumps(
            {
                "watchlist": brief.watchlist.name,
                "title": brief.title,
                "as_of": str(brief.as_of),
                "partial": brief.partial,
                "approved_by": brief.decided_by,
                "approved_at": brief.decided_at.isoformat() if brief.decided_at else None,
                "text": brief.body_text,
                "claims": brief.claims,
                "verification": brief.verification,
            },
            default=str,
        )
    finally:
        close_old_connections()
