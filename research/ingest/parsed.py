"""What a parser returns: a document's pages, each with its lines and paragraphs, or a ParseError
whose message is shown to the person who uploaded the file."""

from __future__ import annotations

from dataclasses import dataclass, field


class ParseError(Exception):
    """The file cannot be read; the message is shown to the person who uploaded it."""


@dataclass
class Paragraph:
    text: str
    section: str = ""


@dataclass
class Page:
    number: int
    label: str = ""
    lines: list[str] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
