"""The answer being composed: its parts, the claim table, the citations and what follow-ups may use.

Every figure an answer writes is a ``[[cN]]`` reference into the claim table — minted from tool
output by path (``tool_claim``), from a verbatim quote of a cited passage (``quote_claim``), from a
parsed table (``table_claim``) or from the calculator — or sits inside a verbatim quote. A missing
value is written ``n/a``, never minted. Pure: no database.
"""

from __future__ import annotations

import re
from typing import Any

from core import formatting
from research.agent.text.sentences import display_figure, first_figure, plain_number
from research.packs import registry

# A window that ends in a figure, or a figure and the first word of its unit ("projected at 7.4 per").
_UNIT_FIRST = "|".join(("per", "basis", "percentage", *registry.UNIT_FIRST_WORDS))
_CUT_FIGURE = re.compile(rf"(?:^|\s)[-−(]?\d[\d.,]*(?:\s+(?:{_UNIT_FIRST}))?$")


def excerpt(sentence: str, figure: str | None, limit: int = 320) -> str:
    """At most ``limit`` characters of ``sentence``, centred on its figure when it is longer, in
    whole words (a quote ending "going forwar" reads as a typo in the source)."""
    if len(sentence) <= limit:
        return sentence
    at = sentence.find(figure) if figure else 0
    start = max(0, at - limit // 2)
    end = start + limit
    if start > 0 and not sentence[start - 1].isspace():
        start = sentence.find(" ", start) + 1 or start  # the word cut at the start goes
    cut = sentence.rfind(" ", start, end)
    if end < len(sentence) and not sentence[end].isspace() and cut > start:
        end = cut  # and the word cut at the end
    if end < len(sentence) and _CUT_FIGURE.search(sentence[start:end]):
        # A figure cut from its unit ("… is projected at 7.4 per"): end at the clause before it.
        after_figure = at + len(figure or "")
        clause = max(sentence.rfind(mark, after_figure, end) for mark in ("; ", " – ", " - ", ", "))
        end = clause if clause > start else end
    return sentence[start:end].strip().rstrip(";,")


def document_name(passage: dict[str, Any]) -> str:
    """The title of the document ``passage`` is from ("RBI MPC Minutes, August 2024")."""
    return str(passage.get("document_title") or passage["citation"].rsplit(", p.", 1)[0])


PRIVATE_MARK = "(your private document)"


def source_name(passage: dict[str, Any]) -> str:
    """The document as an answer names its source: a private one as the user's own ("Desk note (your
    private document)"), so its word is not read as the team's; any other by its title. (No quotation
    marks: the verifier holds every quotation to the cited passage's words.)"""
    name = document_name(passage)
    return f"{name} {PRIVATE_MARK}" if passage.get("source") == "private" else name


def bracket_safe(text: Any) -> str:
    """Tool text fit for a ``[Note: …]`` (a ``]`` inside would end the note early)."""
    return str(text).replace("]", ")")


COMPACT = "compact:"  # tool_claim unit prefix: a large amount in its currency, e.g. "compact:USD"


class Composer:
    """The answer being composed: its parts (joined by blank lines), the claim table, the
    citations, the figures a follow-up may refer to, the tickers it is about, and what the
    composer found about whether it answers the question (``assessment``)."""

    def __init__(self, question: str) -> None:
        self.question = question
        self.parts: list[str] = []
        self.claims: list[dict[str, Any]] = []
        self.citations: list[dict[str, Any]] = []
        self.figures: list[dict[str, Any]] = []
        self.subjects: list[str] = []
        self.assessment: dict[str, Any] = {}
        self.outcome = "answered"  # answered | no_document | escalate

    @property
    def draft(self) -> str:
        """The extractive answer: the template with its figures as ``[[cN]]`` references."""
        return "\n\n".join(self.parts)

    def claim(self, **fields: Any) -> str:
        """Mint the next claim id and return its reference."""
        cid = f"c{len(self.claims) + 1}"
        self.claims.append({"id": cid, "verified": False, **fields})
        return f"[[{cid}]]"

    def tool_claim(
        self,
        key: str,
        path: list[Any],
        value: float | None,
        *,
        label: str,
        unit: str = "",
        places: int = 2,
        scale: float = 1.0,
    ) -> str:
        """A reference to the value at ``path`` in the result ``key``'s output, or ``n/a``. ``unit``
        "%" shows a level in percent (``17.56%``), "±%" a change or return with its sign
        (``+48.95%``, ``−0.27%``), a currency code a price (``₹1,441.80``), "pts" an index level
        (``24,363.30 pts``), "compact:USD" a large amount (``$3.7T``) — the pages' one number layer
        (core/formatting.py)."""
        if value is None:
            return "n/a"  # never mint a missing value
        shown = value * scale
        if unit in ("%", "±%"):
            display = formatting.percent(shown, signed=unit == "±%", digits=places)
        elif unit.startswith(COMPACT):
            display = formatting.money_compact(shown, unit.removeprefix(COMPACT))
        elif unit:
            display = formatting.price(shown, unit)
        else:
            display = formatting.format_number(shown, places)
        return self.claim(kind="tool", result_key=key, path=path, value=value, label=label, display=display)

    def cite(self, passage: dict[str, Any], quote: str) -> str:
        """Record the citation of ``quote`` from ``passage``; the ``[Source: …]`` mark to write."""
        entry = {
            "citation": passage["citation"],
            "url": passage["url"],
            "chunk_id": passage["chunk_id"],
            "quote": quote,
            "document_id": passage.get("document_id"),
            "page": passage.get("page"),
        }
        if entry not in self.citations:
            self.citations.append(entry)
        return f"[Source: {passage['citation']}]"

    def quote_claim(self, passage: dict[str, Any], number: str, unit: str, label: str, **memory: Any) -> str:
        """A figure read from ``passage`` (it must appear there verbatim): a reference to it.
        ``memory`` (metric, target, answers) goes with the figure follow-ups may use."""
        value = float(plain_number(number))
        ref = self.claim(
            kind="quote",
            chunk_id=passage["chunk_id"],
            citation=passage["citation"],
            url=passage["url"],
            label=label,
            value=value,
            display=display_figure(number, unit),
            quote_figure=number,
            origin=passage.get("source", "team"),
        )
        self.figures.append(
            {
                "label": label,
                "value": plain_number(number),
                "quote_figure": number,
                "unit": unit,
                "period": (passage.get("doc_date") or "")[:7],
                "source": passage["citation"],
                "document_id": passage.get("document_id"),
                "chunk_id": passage["chunk_id"],
                "url": passage["url"],
                **memory,
            }
        )
        return ref

    def table_claim(
        self,
        passage: dict[str, Any],
        *,
        display: str,
        value: float,
        against: float,
        label: str,
        side: str = "",
        extra: str = "",
    ) -> str:
        """A count computed from a table parsed out of ``passage`` (re-counted by the verifier): the
        split (``value`` for, ``against``), with ``side`` ("for"/"against") that side's count alone,
        with ``extra`` the rows whose third column reads it (the members for 35 basis points)."""
        return self.claim(
            kind="table",
            chunk_id=passage["chunk_id"],
            citation=passage["citation"],
            url=passage["url"],
            label=label,
            value=value,
            against=against,
            display=display,
            **({"side": side} if side else {}),
            **({"extra": extra} if extra else {}),
        )

    def quote(self, passage: dict[str, Any], sentence: str, label: str, *, figure_claim: bool = True) -> None:
        """Quote ``sentence`` from ``passage`` with its citation; its first figure becomes a quote claim."""
        figure = first_figure(sentence)
        text = excerpt(sentence, figure[0] if figure else None)
        # A private document is named as the user's own once: here, unless a line above already did.
        named = any(PRIVATE_MARK in part for part in self.parts)
        said = "Your private document says: " if passage.get("source") == "private" and not named else ""
        self.parts.append(f"{said}“{text}” {self.cite(passage, text)}")
        if figure and figure_claim:
            self.quote_claim(passage, figure[0], figure[1], label)
