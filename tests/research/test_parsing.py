"""Sniffing, parsing with provenance, and chunking — on real RBI documents."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest

from research.ingest.chunking import chunk_pages, split_sentences
from research.ingest.parsers import Page, ParseError, parse, parse_html, parse_text, sniff, strip_repeated_lines
from research.retrieval.embeddings import get_embedder
from tests.research import wordpiece
from tests.research.conftest import MPC_AUG_2024, annual_report_excerpt, blank_pdf, encrypted_pdf


@pytest.fixture(scope="module")
def mpc_pages() -> list[Page]:
    return parse("pdf", MPC_AUG_2024.read_bytes())


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.txt", b"", "empty"),
        ("notes.txt", b"  \n\t ", "empty"),
        ("minutes.pdf", b"", "empty"),
        ("minutes.pdf", b"<html><body>not a pdf</body></html>", "not a PDF"),
        ("report.txt", b"%PDF-1.7 binary", "binary content"),
        ("report.md", b"\x00\x01\x02abc", "binary content"),
        ("page.html", b"just words, no markup at all", "does not look like HTML"),
        ("latin1.txt", "caf\xe9".encode("latin-1"), "not UTF-8"),
        ("model.exe", b"MZ...", "unsupported file type"),
    ],
)
def test_sniff_rejects_with_a_reason(name: str, data: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        sniff(name, data)


def test_sniff_accepts_real_files() -> None:
    assert sniff("x.pdf", MPC_AUG_2024.read_bytes()) == "pdf"
    assert sniff("x.md", b"# Title\n\nText") == "markdown"
    assert sniff("x.htm", b"<!doctype html><p>hi</p>") == "html"
    assert sniff("x.txt", "₹14.1 lakh crore".encode()) == "text"


def test_pdf_pages_carry_printed_numbers_and_paragraphs(mpc_pages: list[Page]) -> None:
    assert [p.number for p in mpc_pages] == list(range(1, 15))
    # Page 1 prints no number (falls back to the file page); pages 2.. print theirs on line 1.
    assert [p.label for p in mpc_pages] == [str(n) for n in range(1, 15)]
    page3 = mpc_pages[2]
    sections = [para.section for para in page3.paragraphs]
    assert sections[:3] == ["para 10", "para 11", "para 12"]
    assert page3.paragraphs[0].text.startswith("10. Headline inflation has moderated")
    # The printed number is not left in the text.
    assert not any(para.text.strip() == "3" for para in page3.paragraphs)


def test_garbled_letterhead_is_dropped(mpc_pages: list[Page]) -> None:
    text = " ".join(para.text for page in mpc_pages for para in page.paragraphs)
    assert not re.search(r"[\u0900-\u097f\ufffd]", text)
    assert "Committee" in text


def test_text_copied_out_of_a_pdf_loses_its_damaged_words_and_keeps_the_rest() -> None:
    """pypdf's text of the August 2024 minutes, as an analyst might paste it into a .txt file: the
    letterhead's Hindi comes out as U+FFFD mixed with stray Devanagari."""
    pasted = (
        "Keep the policy repo rate under the liquidity adjustment facility (LAF)\n"
        "unchanged at 6.50 per cent.\n"
        "\ufffd\u0947\u0938 \ufffd\u0915\u093e\u0936\u0928\u0940 PRESS RELEASE\n"
        "\u092d\u093e\u0930\u0924\u0940\u092f \ufffd\u0930\u091c\u093c\u0935\u0930\u094d RESERVE BANK OF INDIA\n"
    )
    text = " ".join(para.text for page in parse_text(pasted.encode()) for para in page.paragraphs)
    assert "\ufffd" not in text
    assert "unchanged at 6.50 per cent." in text and "PRESS RELEASE" in text and "RESERVE BANK OF INDIA" in text
    assert "\u092d\u093e\u0930\u0924\u0940\u092f" in text  # an intact Hindi word is text, and stays
    assert "\u0915\u093e\u0936\u0928\u0940" not in text  # the rest of a damaged one goes with it


def test_repeated_headers_and_footers_are_removed() -> None:
    bodies = [
        "Inflation eased to 4.8 per cent.",
        "Growth held up.",
        "Credit grew 16 per cent.",
        "Liquidity was in surplus.",
        "The rupee was stable.",
    ]
    pages = [
        Page(number=n, lines=["ACME QUARTERLY REVIEW", body, f"Confidential - page {n} of 5"])
        for n, body in enumerate(bodies, start=1)
    ]
    strip_repeated_lines(pages)
    assert [p.lines for p in pages] == [[body] for body in bodies]
    assert [p.label for p in pages] == ["1", "2", "3", "4", "5"]


def test_text_pages_split_on_form_feed_with_printed_numbers() -> None:
    pages = parse_text(annual_report_excerpt())
    labels = [p.label for p in pages]
    assert labels == [str(n) for n in range(31, 39)] + [str(n) for n in range(61, 67)]
    page63 = next(p for p in pages if p.label == "63")
    assert any("Gross market borrowings for 2024-25" in para.text for para in page63.paragraphs)
    assert any(para.section == "II.6.8" for para in page63.paragraphs)


def test_html_drops_scripts_and_keeps_headings_as_sections() -> None:
    html = b"""<!doctype html><html><head><title>t</title><script>var leaked = 'SECRET-JS';</script></head>
    <body><h2>Liquidity</h2><p>Banks held <b>surplus</b> liquidity.</p><script>alert('x')</script>
    <style>p { color: red }</style><p onclick="evil()">Rates were kept unchanged.</p></body></html>"""
    pages = parse_html(html)
    text = " ".join(p.text for p in pages[0].paragraphs)
    assert "SECRET-JS" not in text and "alert" not in text and "color" not in text
    assert "Banks held surplus liquidity." in text
    assert {p.section for p in pages[0].paragraphs} == {"Liquidity"}


def test_pdf_failures_have_reasons() -> None:
    with pytest.raises(ParseError, match="no text could be extracted"):
        parse("pdf", blank_pdf())
    with pytest.raises(ParseError, match="encrypted"):
        parse("pdf", encrypted_pdf())
    with pytest.raises(ParseError, match="damaged"):
        parse("pdf", b"%PDF-1.7\n" + b"\x8f garbage " * 200)


def test_sentence_splitter_respects_abbreviations() -> None:
    text = "Prof. Jayanth R. Varma voted to cut. Dr. Patra agreed. Rates: 6.50 per cent."
    assert split_sentences(text) == [
        "Prof. Jayanth R. Varma voted to cut.",
        "Dr. Patra agreed.",
        "Rates: 6.50 per cent.",
    ]


def test_chunks_fit_the_model_overlap_and_keep_sentences_whole(mpc_pages: list[Page]) -> None:
    embedder = get_embedder()
    chunks = chunk_pages(mpc_pages, word_pieces=embedder.word_pieces, max_tokens=200, overlap=40)
    assert len(chunks) > 14
    # The stored count is the model's word pieces, counted again by an independent implementation
    # of BERT's WordPiece over the model's vocab.txt (tests/research/wordpiece.py), not by the
    # Rust tokenizer the chunker used.
    counted = [len(wordpiece.tokenize(c.text)) for c in chunks]
    assert counted == [c.token_count for c in chunks]
    # By hand: the, rep, ##o, rate, was, unchanged, at, 6, ., 50, per, cent, .
    assert [len(p) for p in embedder.word_pieces(["The repo rate was unchanged at 6.50 per cent."])] == [13]
    assert max(counted) <= 200 < embedder.max_tokens - 2
    # Every chunk starts at a sentence start and ends at a sentence end (no sentence here is
    # longer than a chunk), and never crosses a page.
    sentences = {s for page in mpc_pages for para in page.paragraphs for s in split_sentences(para.text)}
    for chunk in chunks:
        assert any(chunk.text.startswith(s) for s in sentences), chunk.text[:80]
        assert any(chunk.text.endswith(s) for s in sentences), chunk.text[-80:]
    # Consecutive chunks on a page overlap by whole sentences.
    same_page = [(a, b) for a, b in itertools.pairwise(chunks) if a.page_number == b.page_number]
    overlapping = [1 for a, b in same_page if split_sentences(b.text)[0] in a.text]
    assert len(overlapping) >= len(same_page) // 2
    assert {c.page_label for c in chunks} == {str(n) for n in range(1, 15)}
    assert any(c.section.startswith("para 10") for c in chunks if c.page_label == "3")


def test_a_whole_file_is_counted_in_one_tokenizer_call(mpc_pages: list[Page]) -> None:
    """The tokenizer's batch runs on every core, so the file's sentences go to it at once; the
    counts still land on their own sentences (the same chunks as counting page by page, with an
    empty page between two pages of text)."""
    embedder = get_embedder()
    calls: list[int] = []

    def counting(texts: Sequence[str]) -> list[list[int]]:
        calls.append(len(texts))
        return embedder.word_pieces(texts)

    pages = [*mpc_pages[:3], Page(number=90, label="90", paragraphs=[]), *mpc_pages[3:]]
    whole = chunk_pages(pages, word_pieces=counting, max_tokens=200, overlap=40)
    assert len(calls) == 1
    one_by_one = [
        c for page in pages for c in chunk_pages([page], word_pieces=embedder.word_pieces, max_tokens=200, overlap=40)
    ]
    assert whole == one_by_one
    assert [len(wordpiece.tokenize(c.text)) for c in whole] == [c.token_count for c in whole]
