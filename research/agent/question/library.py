"""A document of the user's library as question understanding sees it: its type, title, dates,
issuer and fiscal label, from the document's own metadata. The planner takes a snapshot of the
library as a list of these; nothing here touches the database."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LibDoc:
    """One document the user can see, as question understanding needs it."""

    id: int
    doc_type: str
    title: str
    doc_date: dt.date | None
    period_start: dt.date | None
    period_end: dt.date | None
    mine: bool
    filename: str = ""
    issuer: str = ""
    fiscal_period: str = ""
    pack: str = ""  # the corpus pack that reads it (research/packs), recognised from its first pages

    @classmethod
    def of_passage(cls, p: dict[str, Any]) -> LibDoc:
        """The document of a passage as the search tool returns it (its own metadata)."""
        day, start, end = (
            dt.date.fromisoformat(p[k][:10]) if p.get(k) else None for k in ("doc_date", "period_start", "period_end")
        )
        return cls(
            id=int(p.get("document_id") or 0),
            doc_type=str(p.get("doc_type") or ""),
            title=str(p.get("document_title") or ""),
            mine=bool(p.get("uploaded_by_you")),
            issuer=str(p.get("issuer") or ""),
            fiscal_period=str(p.get("fiscal_period") or ""),
            pack=str(p.get("pack") or ""),
            doc_date=day,
            period_start=start,
            period_end=end,
        )

    @property
    def start(self) -> dt.date | None:
        return self.period_start or self.doc_date

    @property
    def end(self) -> dt.date | None:
        return self.period_end or self.period_start or self.doc_date

    @property
    def is_event(self) -> bool:
        """A short period (a meeting): what "meeting" in a question refers to."""
        return bool(self.period_start and self.period_end and (self.period_end - self.period_start).days <= 7)
