"""The details proposed for an uploaded file: what its cover says (research/packs/filings/cover.py),
as Document fields, each with where it was read — shown on the upload's confirmation page and in
the API's upload response, for the uploader to confirm or correct."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from research.ingest.parsers import ParseError, iter_pdf_texts, parse_html, pdf_texts
from research.packs.filings.cover import SIGNATURE, SIGNED_FORMS, detect_filing, signature_date

# The Document fields a proposal may fill, in the order a form shows them.
FIELDS = ("issuer", "doc_type", "fiscal_period", "period_start", "period_end", "doc_date")


@dataclass
class Proposal:
    issuer: str = ""
    doc_type: str = ""
    fiscal_period: str = ""
    period_start: dt.date | None = None
    period_end: dt.date | None = None
    doc_date: dt.date | None = None
    sources: dict[str, str] = field(default_factory=dict)  # field → "cover page", "file name", …

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: each field's value (dates ISO, absent ones null) and where it was read."""
        values = {name: getattr(self, name) for name in FIELDS}
        out: dict[str, Any] = {k: (v.isoformat() if isinstance(v, dt.date) else (v or None)) for k, v in values.items()}
        out["sources"] = {k: v for k, v in self.sources.items() if values.get(k)}
        return out


COVER_PAGES = 12  # the cover, a 10-Q's first statements, a release's dateline


def _texts(kind: str, data: bytes, name: str) -> list[str]:
    if kind == "pdf":
        return pdf_texts(data, name=name, limit=COVER_PAGES)
    if kind == "html":  # an EDGAR filing saved as HTML: its visible text, block by block
        return ["\n".join(line for page in parse_html(data) for line in page.lines)]
    if kind in ("text", "markdown"):
        return data.decode("utf-8", errors="replace").split("\f")
    return []


def propose(kind: str, data: bytes, filename: str) -> Proposal:
    """What the file says about itself; an empty proposal for a file that is not a filing (or that
    cannot be read here — the ingestion reports that with its reason)."""
    try:
        texts = _texts(kind, data, filename)
        meta = detect_filing(texts, filename)
        if meta.form_type in SIGNED_FORMS and meta.filed is None and kind == "pdf" and len(texts) == COVER_PAGES:
            # The signature page sits after the statements: read on, one page at a time, to it.
            rest = iter_pdf_texts(data, name=filename, start=COVER_PAGES)
            meta.filed = next((day for page in rest if (day := signature_date([page]))), None)
            if meta.filed:
                meta.sources["doc_date"] = SIGNATURE
    except ParseError:
        return Proposal()
    sources = dict(meta.sources)
    if "doc_date" in sources and meta.filed is None:
        sources.pop("doc_date")
    return Proposal(
        issuer=meta.issuer,
        doc_type=meta.form_type,
        fiscal_period=meta.fiscal_period,
        period_start=meta.period_start,
        period_end=meta.period_end,
        doc_date=meta.filed,
        sources=sources,
    )


def apply(proposal: Proposal, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` (what the uploader typed) with the proposal filling what they left empty. A period
    given by the uploader is kept whole: a proposed start never pairs with a typed end."""
    merged = dict(given)
    typed_period = bool(given.get("period_start") or given.get("period_end"))
    for name in FIELDS:
        if name in ("period_start", "period_end") and typed_period:
            continue
        if not merged.get(name) and getattr(proposal, name):
            merged[name] = getattr(proposal, name)
    return merged
