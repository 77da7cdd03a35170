"""Simple tables in extracted text, parsed into rows so counts and names come from code.

PDF text extraction flattens a table into one run of words: "Voting on the Resolution to keep
the policy repo rate unchanged at 6.50 per cent Member Vote Dr. A Yes Dr. B No … Statement by …".
:func:`vote_tables` finds such member/vote tables — a caption, a "Member Vote" header (with an
optional extra column), then rows of a person's name and Yes/No — and returns the rows. The count
("4–2") is computed from the rows here; :func:`recount` re-derives it for the verifier another way
(counting the vote words in the table's text), so a parsing slip cannot verify itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from research.packs import registry

# Honorifics before a member's name: the generic ones and the packs', longest first.
_HONORIFICS = sorted({"Dr", "Prof", "Mr", "Mrs", "Ms", "Sir", *registry.HONORIFICS}, key=lambda w: (-len(w), w))
HONORIFIC = rf"(?:{'|'.join(_HONORIFICS)})\.?"
_NAME = rf"{HONORIFIC}\s*[A-Z][\w.’'\-]*(?:\s+[A-Z][\w.’'\-]*){{0,4}}?"
PERSON = re.compile(_NAME.replace("{0,4}?", "{0,4}") + r"(?=\s|,|$)")  # a member named in a sentence
_ROW = re.compile(rf"({_NAME})\s+(Yes|No|Abstain(?:ed)?|Absent)\b(?:\s+(\d+(?:\.\d+)?))?")
_TABLE = re.compile(
    r"(?P<caption>Voting on (?:the )?(?:[^.]|\.(?=\d)){0,200}?)\s+Member\s+Vote\s*"
    r"(?P<extra>\w[^()]{0,80}\([^)]{1,40}\))?\s*"
    rf"(?P<rows>(?:{_NAME}\s+(?:Yes|No|Abstain(?:ed)?|Absent)\b(?:\s+\d+(?:\.\d+)?)?\s*)+)"
)


@dataclass(frozen=True)
class VoteRow:
    name: str
    vote: str  # Yes / No / Abstain / Absent
    extra: str = ""  # the optional third column, e.g. the magnitude in basis points


@dataclass(frozen=True)
class VoteTable:
    caption: str  # "Voting on the Resolution to …"
    extra_header: str
    rows: tuple[VoteRow, ...]
    text: str  # the table as it appears in the passage (for quoting and re-counting)

    @property
    def yes(self) -> list[str]:
        return [r.name for r in self.rows if r.vote == "Yes"]

    @property
    def no(self) -> list[str]:
        return [r.name for r in self.rows if r.vote == "No"]

    def with_extra(self, value: str) -> list[str]:
        """The members whose third column reads ``value`` (a magnitude: "35" basis points), in order."""
        return [r.name for r in self.rows if r.extra == value]

    @property
    def split(self) -> str:
        """ "4–2" (for–against), or "6–0" when unanimous."""
        return f"{len(self.yes)}–{len(self.no)}"


def _normal(text: str) -> str:
    return " ".join(text.split())


def normal_name(raw: str) -> str:
    """ "Dr.Pami Dua" → "Dr. Pami Dua" (the extraction sometimes drops the space)."""
    return " ".join(re.sub(rf"^({HONORIFIC})(?=[A-Z])", r"\1 ", raw.strip()).split())


def vote_tables(text: str) -> list[VoteTable]:
    """Every member/vote table in ``text``, with its rows."""
    flat = _normal(text)
    tables = []
    for match in _TABLE.finditer(flat):
        rows = tuple(
            VoteRow(
                name=normal_name(m.group(1)),
                vote=m.group(2).capitalize().replace("Abstained", "Abstain"),
                extra=m.group(3) or "",
            )
            for m in _ROW.finditer(match.group("rows"))
        )
        if len(rows) >= 2:
            tables.append(
                VoteTable(
                    caption=match.group("caption").strip(),
                    extra_header=(match.group("extra") or "").strip(),
                    rows=rows,
                    text=match.group(0).strip(),
                )
            )
    return tables


def _table_body(text: str) -> str | None:
    """The text after the "Member Vote" header, up to the first member's statement."""
    flat = _normal(text)
    at = flat.find("Member Vote")
    if at < 0:
        return None
    body = flat[at + len("Member Vote") :]
    end = body.find("Statement by")
    return body if end < 0 else body[:end]


def recount(text: str) -> tuple[int, int] | None:
    """(for, against) re-derived from the table's text by counting its vote words after the
    "Member Vote" header — a different method from the row parser, for the verifier."""
    body = _table_body(text)
    if body is None:
        return None
    words = body.split()
    return sum(1 for w in words if w == "Yes"), sum(1 for w in words if w == "No")


def recount_extra(text: str, value: str) -> int | None:
    """How many rows of the table read ``value`` in their third column, re-derived as a vote word
    followed by it after the "Member Vote" header (not by the row parser), for the verifier."""
    body = _table_body(text)
    return None if body is None else len(re.findall(rf"\b(?:Yes|No)\s+{re.escape(value)}(?![\d.])", body))


def join_names(names: list[str]) -> str:
    if not names:
        return "none"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def table_claim_problem(claim: dict[str, Any], chunk_texts: dict[int, str]) -> str | None:
    """For the verifier: what is wrong with a count from a vote table (None when nothing), re-counted
    from the passage's text by :func:`recount` and :func:`recount_extra`, not by the row parser
    that made it: a split, one side, or the members of one magnitude."""
    table_text = chunk_texts.get(int(claim.get("chunk_id", 0)), "")
    if claim.get("extra"):  # the rows of one magnitude: "4 members voted for 35 basis points"
        rows = recount_extra(table_text, str(claim["extra"]))
        ok = rows == int(claim["value"]) and str(claim["display"]) == str(rows)
        said = claim["display"]
        return None if ok else f"{claim['id']}: re-counting the table gives {rows}, the claim says {said!r}"
    counted = recount(table_text)
    if claim.get("side"):
        # One side's count, shown as that number: "2 members voted to cut …".
        side = None if counted is None else counted[0 if claim["side"] == "for" else 1]
        if side != int(claim["value"]) or str(claim["display"]) != str(side):
            said = claim["display"]
            return f"{claim['id']}: re-counting the table gives {side} {claim['side']}, the claim says {said!r}"
        return None
    if counted != (int(claim["value"]), int(claim.get("against", -1))):
        return f"{claim['id']}: re-counting the table gives {counted}, the claim says {claim['display']!r}"
    return None
