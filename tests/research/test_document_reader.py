"""The document reader shows one document page at a time and opens at the cited passage's page."""

from __future__ import annotations

import re
from typing import Any

import pytest

from research.models import Chunk
from tests.research.conftest import Corpus

pytestmark = pytest.mark.django_db


def test_reader_pages_and_opens_at_the_cited_page(corpus: Corpus, analyst: Any, client: Any) -> None:
    doc = corpus.mpc
    pages = sorted(set(Chunk.objects.filter(document=doc).values_list("page_number", flat=True)))
    assert len(pages) > 3
    client.force_login(analyst)
    first = client.get(f"/research/documents/{doc.pk}/").content.decode()
    shown = {int(n) for n in re.findall(r'data-page="(\d+)"', first)}
    assert shown == {pages[0]}  # one page, not the whole document
    chunk_ids = set(map(int, re.findall(r'data-chunk="(\d+)"', first)))
    assert chunk_ids == set(Chunk.objects.filter(document=doc, page_number=pages[0]).values_list("id", flat=True))
    assert f'href="?page={pages[1]}" rel="next"' in first and 'rel="prev"' not in first

    cited = Chunk.objects.filter(document=doc, page_number=pages[3]).first()
    assert cited is not None
    opened = client.get(f"/research/documents/{doc.pk}/", {"chunk": cited.pk}).content.decode()
    assert re.findall(r'data-page="(\d+)"', opened) == [str(pages[3])]
    assert f'id="chunk-{cited.pk}"' in opened and "chunk target" in opened
    assert f'href="?page={pages[2]}" rel="prev"' in opened

    # A page that has no passage, or nonsense, opens the first page instead of failing.
    assert client.get(f"/research/documents/{doc.pk}/", {"page": "abc"}).status_code == 200
    assert re.findall(r'data-page="(\d+)"', client.get(f"/research/documents/{doc.pk}/?page=999").content.decode()) == [
        str(pages[0])
    ]


def test_a_one_page_document_reads_one_page(analyst: Any, client: Any) -> None:
    from tests.research.conftest import ingest

    doc = ingest(analyst, "note.txt", b"The repo rate was left at 6.50 per cent.", title="One-page note")
    client.force_login(analyst)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", client.get(f"/research/documents/{doc.pk}/").content.decode()))
    assert "Plain text · 1 page · 1 passage · uploaded by you" in text
