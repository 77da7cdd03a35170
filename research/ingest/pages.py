"""Pages already extracted by our parser, stored as compressed JSON (``Document.Kind.PAGES``).

Why: the demo corpus (41 MPC minutes, 25 MB of PDF) would make the repository large, while the
text our parser reads from them is about 2 MB and compresses to a few hundred KB. Ingesting a
pages file goes through the same chunk → embed → store path as an upload; only the PDF reading is
done ahead of time (``manage.py corpus_pages_extract``), by the same parser.

Format (xz-compressed UTF-8 JSON)::

    {"format": "alphadesk-pages/1",
     "source": {"file": "x.pdf", "sha256": "...", "bytes": 123, "parser": "research.ingest.parsers"},
     "pages": [{"number": 1, "label": "1", "paragraphs": [{"section": "para 5", "text": "..."}]}]}
"""

from __future__ import annotations

import json
import lzma
from typing import Any

from research.ingest.parsed import Page, Paragraph, ParseError

FORMAT = "alphadesk-pages/1"


def pages_dump(pages: list[Page], *, source: dict[str, Any]) -> bytes:
    """``pages`` (with their paragraphs) as a compressed pages file."""
    body = {
        "format": FORMAT,
        "source": source,
        "pages": [
            {
                "number": page.number,
                "label": page.label,
                "paragraphs": [{"section": p.section, "text": p.text} for p in page.paragraphs],
            }
            for page in pages
        ],
    }
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME)


def pages_load(data: bytes) -> tuple[list[Page], dict[str, Any]]:
    """The pages and the ``source`` block of a pages file; :class:`ParseError` when it is not one."""
    try:
        body = json.loads(lzma.decompress(data).decode("utf-8"))
    except (lzma.LZMAError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParseError("this is not an extracted-pages file (xz-compressed JSON).") from exc
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ParseError(f"unknown pages format {body.get('format') if isinstance(body, dict) else None!r}.")
    pages = [
        Page(
            number=int(p["number"]),
            label=str(p["label"]),
            paragraphs=[Paragraph(text=str(x["text"]), section=str(x.get("section", ""))) for x in p["paragraphs"]],
        )
        for p in body["pages"]
    ]
    if not any(page.paragraphs for page in pages):
        raise ParseError("the pages file holds no text.")
    return pages, dict(body.get("source") or {})


def parse_pages(data: bytes) -> list[Page]:
    return pages_load(data)[0]
