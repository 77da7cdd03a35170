"""From uploaded bytes to pages of clean paragraphs with provenance.

Every format becomes ``list[Page]``; a page has its 1-based number in the file (the physical page),
its label — the PDF's own page label, else a printed page number that is part of a consistent
sequence, else the physical page (research/ingest/page_labels.py) — and paragraphs tagged with the
section they belong to (a numbered paragraph such as "10." or "II.6.3", or a heading). Lines
repeated on most pages (running headers/footers) are removed before chunking.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

from research.ingest.page_labels import assign_labels
from research.ingest.pages import parse_pages
from research.ingest.parsed import Page, Paragraph, ParseError
from research.models import Document

# --- sniffing ---------------------------------------------------------------------------------
EXTENSIONS = {
    ".pdf": Document.Kind.PDF,
    ".html": Document.Kind.HTML,
    ".htm": Document.Kind.HTML,
    ".md": Document.Kind.MARKDOWN,
    ".markdown": Document.Kind.MARKDOWN,
    ".txt": Document.Kind.TEXT,
    ".text": Document.Kind.TEXT,
}


def sniff(filename: str, data: bytes) -> Document.Kind:
    """The document kind, checked against the content; raises :class:`ParseError` with a reason."""
    name = filename.lower()
    ext = name[name.rfind(".") :] if "." in name else ""
    kind = EXTENSIONS.get(ext)
    if kind is None:
        raise ParseError(f"{filename}: unsupported file type; upload PDF, HTML, Markdown or plain text.")
    if not data.strip():
        raise ParseError(f"{filename}: the file is empty.")
    if kind == Document.Kind.PDF:
        if not data.lstrip()[:5] == b"%PDF-":
            raise ParseError(f"{filename}: this is not a PDF (the content does not start with %PDF-).")
        return kind
    if data.lstrip()[:5] == b"%PDF-" or b"\x00" in data[:4096]:
        raise ParseError(f"{filename}: binary content in a {ext} file; upload it with its real extension.")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{filename}: the text is not UTF-8 (byte {exc.start}).") from exc
    if kind == Document.Kind.HTML and not re.search(
        rb"<\s*(html|body|p|div|h[1-6]|head|!doctype)\b", data[:65536], re.I
    ):
        raise ParseError(f"{filename}: this does not look like HTML (no HTML tags found).")
    return kind


# What happened and what to do, for a file with no text left to index (REST status_message too).
NO_TEXT = (
    "no text could be extracted: the file is empty of text, or is a scanned PDF (images of pages). "
    "Run OCR on a scan (e.g. ocrmypdf) or upload a text version, then upload it again."
)

# --- line cleaning ----------------------------------------------------------------------------
# The RBI letterhead's Hindi extracts as garbled glyphs (see data/rbi/SOURCES.md): drop such lines.
_GARBLED = re.compile(r"[\u0900-\u097f\ufffd\ue000-\uf8ff]")
_SECTION = re.compile(r"^\s*(?:([IVX]{1,6}(?:\.\d{1,3}){1,3})\.?|(\d{1,3})\.)\s+(?=\S)")
_SPACES = re.compile(r"[ \t\u00a0]+")
# Text extraction sometimes fuses a numbered paragraph onto the previous sentence
# ("…₹0.5 lakh crore.II.6.8 Gross market borrowings…"): split it back onto its own line.
_FUSED_SECTION = re.compile(r"(?<=\.)(?=[IVX]{1,6}(?:\.\d{1,3}){1,3}\s)")


def _clean_line(line: str) -> str:
    return _SPACES.sub(" ", line).strip()


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", line.lower())


def strip_repeated_lines(pages: list[Page]) -> None:
    """Label each page and take its printed page number out of the text (page_labels.py), then drop
    the edge lines that repeat (digits ignored) on at least half of the pages: running headers and
    footers."""
    for page in pages:
        page.lines = [line for line in page.lines if line]
    assign_labels(pages)
    if len(pages) >= 3:
        edges: Counter[str] = Counter()
        for page in pages:
            edges.update({_shape(line) for line in page.lines[:2] + page.lines[-2:]})
        repeated = {shape for shape, count in edges.items() if count >= max(3, len(pages) // 2)}
        kept = [
            [
                line
                for i, line in enumerate(page.lines)
                if not ((i < 2 or i >= len(page.lines) - 2) and _shape(line) in repeated)
            ]
            for page in pages
        ]
        # Never empty the document (issue 49): pages that all carry only the same line are that
        # line's text, not a header over nothing.
        if any(kept):
            for page, lines in zip(pages, kept, strict=True):
                page.lines = lines


def paragraphs_from_lines(lines: list[str], section: str = "") -> tuple[list[Paragraph], str]:
    """Group lines into paragraphs (blank line or a numbered paragraph starts a new one).
    Returns the paragraphs and the section in force at the end, which carries onto the next page."""
    paragraphs: list[Paragraph] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            text = " ".join(current)
            text = re.sub(r"(\w)- (\w)", r"\1-\2", text)  # "medium -\nterm" style breaks
            paragraphs.append(Paragraph(text=text.strip(), section=section))
            current.clear()

    split_lines: list[str] = []
    for line in lines:
        split_lines.extend(_FUSED_SECTION.sub("\n", line).split("\n") if line else [line])
    for line in split_lines:
        if not line:
            flush()
            continue
        match = _SECTION.match(line)
        if match:
            flush()
            section = match.group(1) or f"para {match.group(2)}"
        elif line.startswith("#"):  # a Markdown heading (HTML headings arrive as "# ...")
            flush()
            section = line.lstrip("#").strip()[:120]
            continue
        current.append(line)
    flush()
    return paragraphs, section


def _finish(pages: list[Page], *, strip: bool = True) -> list[Page]:
    if strip:
        strip_repeated_lines(pages)
    else:
        for page in pages:
            page.label = page.label or str(page.number)
    section = ""
    for page in pages:
        page.paragraphs, section = paragraphs_from_lines(page.lines, section)
    if not any(page.paragraphs for page in pages):
        # Headings only (a Markdown file of one "# Title"): the headings are the text.
        for page in pages:
            page.paragraphs = [Paragraph(text=h.lstrip("#").strip(), section="") for h in page.lines if h.strip("# ")]
    pages = [page for page in pages if page.paragraphs]
    if not pages:
        raise ParseError(NO_TEXT)
    return pages


# --- formats ----------------------------------------------------------------------------------
def _pdf_page_lines(pdf: Any, index: int) -> list[str]:
    """One page's text lines, with a blank line where the vertical gap to the previous line is
    clearly wider than the page's usual line spacing: that is how paragraphs look on paper, and
    the paragraph grouping below relies on it."""
    textpage = pdf[index].get_textpage()
    count = textpage.count_chars()
    # PDFium marks a hyphen at a line break as U+FFFE ("sub-\nsection"); it is a real hyphen.
    text = textpage.get_text_range(0, count).replace("\ufffe", "-")
    found: list[tuple[str, float, float]] = []  # (line, top, height) in PDF points, y grows upward
    offset = 0
    for raw in text.split("\r\n"):
        stripped = raw.strip()
        if stripped:
            first = offset + len(raw) - len(raw.lstrip())
            _left, bottom, _right, top = textpage.get_charbox(first) if first < count else (0, 0, 0, 0)
            found.append((stripped, top, top - bottom))
        offset += len(raw) + 2
    textpage.close()
    gaps = [found[k - 1][1] - found[k][1] for k in range(1, len(found))]
    forward = [g for g in gaps if g > 0]
    spacing = statistics.median(forward) if forward else 0.0
    lines: list[str] = []
    for k, (line, _top, height) in enumerate(found):
        # A wide gap, or a jump back up the page (a new column or a text box), ends a paragraph.
        if k and (gaps[k - 1] > 1.6 * spacing or gaps[k - 1] < -height):
            lines.append("")
        lines.append("" if _GARBLED.search(line) else _clean_line(line))
    return lines


def _open_pdf(data: bytes, name: str = "") -> Any:
    """The PDF opened by PDFium, or :class:`ParseError` naming ``name``. PDFium tries the empty user
    password itself, so a PDF encrypted only to restrict printing or copying (as many SEC filings
    are) opens like any other — as it does in every reader; one that needs a password is refused."""
    import pypdfium2 as pdfium

    where = f"{name}: " if name else ""
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise ParseError(
                f"{where}the PDF is encrypted and needs a password to open; upload a version without a password."
            ) from exc
        raise ParseError(f"{where}the PDF is damaged and cannot be read.") from exc


def _pdf_labels(pdf: Any) -> list[str]:
    """The PDF's own page labels (/PageLabels), one per page; empty strings when it has none."""
    labels = [pdf.get_page_label(i) or "" for i in range(len(pdf))]
    return labels if any(labels) else [""] * len(pdf)


def parse_pdf(data: bytes, *, name: str = "") -> list[Page]:
    # PDFium (C++, via pypdfium2) reads text ~10x faster than pure-Python pypdf, which kept
    # ingestion waiting on parsing rather than on the embedding model.
    import pypdfium2 as pdfium

    pdf = _open_pdf(data, name)
    try:
        labels = _pdf_labels(pdf)
        pages = [Page(number=i + 1, label=labels[i], lines=_pdf_page_lines(pdf, i)) for i in range(len(pdf))]
    except pdfium.PdfiumError as exc:
        where = f"{name}: " if name else ""
        raise ParseError(f"{where}the PDF is damaged and cannot be read ({exc}).") from exc
    finally:
        pdf.close()
    return _finish(pages)


# A word holding U+FFFD was damaged before it reached us (text copied out of a PDF whose Hindi
# letterhead has no character map, or a mis-decoded file): what is left of it is noise on the page.
_DAMAGED_WORD = re.compile(r"\S*\ufffd\S*")


def parse_text(data: bytes, *, markdown: bool = False) -> list[Page]:
    text = _DAMAGED_WORD.sub("", data.decode("utf-8").replace("\r\n", "\n"))
    # Form feeds separate pages (as in ``pdftotext`` output and the shipped annual report).
    pages = [
        Page(number=number, lines=[_clean_line(line) for line in chunk.split("\n")])
        for number, chunk in enumerate(text.split("\f"), start=1)
    ]
    if not markdown:
        for page in pages:  # a plain-text "# " line is not a heading
            page.lines = [line[1:].strip() if line.startswith("#") else line for line in page.lines]
    return _finish(pages, strip=len(pages) > 1)


class _HtmlText(HTMLParser):
    """Visible text only: script/style/template content is dropped, headings become sections."""

    SKIP = {"script", "style", "template", "noscript", "iframe", "object", "svg", "head"}
    BLOCK = {"p", "div", "li", "tr", "br", "section", "article", "blockquote", "pre", "table", "ul", "ol"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.buffer: list[str] = []
        self.skip_depth = 0
        self.heading = False

    def _flush(self, blank: bool = True) -> None:
        text = _clean_line("".join(self.buffer))
        self.buffer.clear()
        if text:
            self.lines.append(("# " + text) if self.heading else text)
        if blank:
            self.lines.append("")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip_depth += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self._flush()
            self.heading = True
        elif tag in self.BLOCK:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif re.fullmatch(r"h[1-6]", tag):
            self._flush()
            self.heading = False
        elif tag in self.BLOCK:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.buffer.append(data)


def parse_html(data: bytes) -> list[Page]:
    parser = _HtmlText()
    parser.feed(data.decode("utf-8"))
    parser.close()
    parser._flush()
    return _finish([Page(number=1, lines=parser.lines)], strip=False)


def parse(kind: str, data: bytes, *, name: str = "") -> list[Page]:
    """The pages of a file of ``kind``; ``name`` (the file's name) is named in a PDF's errors."""
    if kind == Document.Kind.PAGES:
        return parse_pages(data)
    if kind == Document.Kind.PDF:
        return parse_pdf(data, name=name)
    if kind == Document.Kind.HTML:
        return parse_html(data)
    return parse_text(data, markdown=kind == Document.Kind.MARKDOWN)


def pdf_texts(data: bytes, *, name: str = "", limit: int = 600) -> list[str]:
    """The raw text of each of the first ``limit`` pages, as PDFium extracts it (running headers
    and footers kept: a filing's footer names its quarter). :class:`ParseError` as :func:`parse`."""
    return list(itertools.islice(iter_pdf_texts(data, name=name), limit))


def iter_pdf_texts(data: bytes, *, name: str = "", start: int = 0) -> Iterator[str]:
    """The raw text of each page from ``start`` on, read one page at a time (stop early for less)."""
    pdf = _open_pdf(data, name)
    try:
        for index in range(start, len(pdf)):
            textpage = pdf[index].get_textpage()
            yield textpage.get_text_range()
            textpage.close()
    finally:
        pdf.close()


def check_pdf_opens(name: str, data: bytes) -> None:
    """Catch PDFs that need a password, are damaged or have no pages at the door, so the uploader
    sees why at once — judged by the very library that will read them (PDFium)."""
    pdf = _open_pdf(data, name)
    try:
        if len(pdf) == 0:
            raise ParseError(f"{name}: the PDF has no pages.")
    finally:
        pdf.close()
