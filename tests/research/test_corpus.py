"""The shipped demo corpus: every MPC minutes and the Annual Report as pages our parser extracted,
added through the same chunk/embed/store path as an upload, and the embedding cache keyed by content."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from research.ingest.pages import pages_dump, pages_load
from research.ingest.parsers import ParseError, parse_pdf
from tests.research.conftest import CORPUS, MPC_AUG_2024

MANIFEST = json.loads((CORPUS / "manifest.json").read_text())


def test_the_manifest_covers_every_meeting_and_the_report_in_a_few_mb() -> None:
    minutes = [e for e in MANIFEST if e["doc_type"] == "mpc_minutes"]
    assert len(minutes) == 41 and [e for e in MANIFEST if e["doc_type"] == "annual_report"]
    years = {e["period_start"][:4] for e in minutes}
    assert years == {str(y) for y in range(2016, 2025)}
    for entry in MANIFEST:
        assert (CORPUS / entry["pages"]).exists(), entry["pages"]
        assert entry["period_start"] <= entry["period_end"] and len(entry["sha256"]) == 64
    shipped = sum(p.stat().st_size for p in (CORPUS / "pages").iterdir())
    assert shipped < 1.5e6  # the 25 MB of PDFs ship as under 1.5 MB of text


def test_the_pages_are_our_parsers_pages_of_the_original_pdf() -> None:
    entry = next(e for e in MANIFEST if e["file"] == MPC_AUG_2024.name)
    data = MPC_AUG_2024.read_bytes()
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    pages, source = pages_load((CORPUS / entry["pages"]).read_bytes())
    parsed = parse_pdf(data)
    assert source["sha256"] == entry["sha256"]
    assert [(p.number, p.label, [(x.section, x.text) for x in p.paragraphs]) for p in pages] == [
        (p.number, p.label, [(x.section, x.text) for x in p.paragraphs]) for p in parsed
    ]
    assert pages_load(pages_dump(pages, source=source))[0] == pages
    with pytest.raises(ParseError):
        pages_load(b"not a pages file")


def test_the_embedding_cache_returns_the_vectors_of_the_same_texts(tmp_path: Path, settings: Any) -> None:
    from research.retrieval.embed_cache import cached_vectors, embed_texts
    from research.retrieval.embeddings import get_embedder

    settings.RESEARCH_EMBED_CACHE_DIR = str(tmp_path)
    embedder = get_embedder()
    texts = ["The policy repo rate was kept unchanged at 6.50 per cent.", "Food inflation eased in July."]
    assert cached_vectors(embedder, texts) is None
    first, hit = embed_texts(embedder, texts, step=1)
    assert not hit and first.shape == (2, 384) and len(list(tmp_path.iterdir())) == 1
    again, hit = embed_texts(embedder, texts, step=1)
    assert hit and np.array_equal(first, again)
    assert cached_vectors(embedder, [*texts[:1], "Food inflation eased in June."]) is None  # other texts, other key


@pytest.mark.django_db
def test_the_loader_adds_documents_with_the_originals_hash_and_a_reupload_links_to_them(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.management.commands.load_research_corpus import entry_add, manifest_entries
    from research.models import Document
    from research.services import UploadFile, document_ingest, document_upload

    owner, analyst = make_user("analyst"), make_user("analyst")
    (entry,) = manifest_entries(CORPUS, match=[MPC_AUG_2024.name])
    with django_capture_on_commit_callbacks(execute=False):
        document, created = entry_add(owner, CORPUS, entry)
    document = document_ingest(document_id=document.pk)
    assert created and document.status == "done" and document.kind == Document.Kind.PAGES
    assert (str(document.period_start), str(document.period_end)) == ("2024-08-06", "2024-08-08")
    assert document.chunk_count > 40 and document.content_hash == entry["sha256"]
    with django_capture_on_commit_callbacks(execute=False):
        again, created_again = entry_add(owner, CORPUS, entry)
        upload = document_upload(user=analyst, files=[UploadFile(name="minutes.pdf", data=MPC_AUG_2024.read_bytes())])
    assert (again, created_again) == (document, False)
    assert upload.created == [] and upload.duplicates == [document]  # the team's copy, not a second one


@pytest.mark.django_db
def test_an_upload_without_metadata_states_its_own_date_period_and_series(
    analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The issue's scenario: minutes uploaded through the API with no metadata at all. Page 1 of the
    Aug 2024 minutes reads "August 22, 2024 / Minutes of the Monetary Policy Committee Meeting,
    August 6 to 8, 2024"."""
    import datetime as dt

    from research.chat.services import chat_message_post, chat_turn_run
    from research.services import UploadFile, document_ingest, document_upload

    with django_capture_on_commit_callbacks(execute=False):
        result = document_upload(
            user=analyst, files=[UploadFile(name=MPC_AUG_2024.name, data=MPC_AUG_2024.read_bytes())]
        )
    document = document_ingest(document_id=result.created[0].pk)
    assert document.doc_date == dt.date(2024, 8, 22)
    assert (document.period_start, document.period_end) == (dt.date(2024, 8, 6), dt.date(2024, 8, 8))
    assert document.doc_type == "reserve_bank_of_india"
    with django_capture_on_commit_callbacks(execute=False):
        turn = chat_message_post(
            user=analyst, question="What policy repo rate did the MPC decide at its August 2024 meeting?"
        )
    chat_turn_run(turn_id=turn.pk)
    turn.refresh_from_db()
    assert turn.status == "done" and turn.citations[0]["document_id"] == document.pk
    assert turn.verification["status"] == "verified"


@pytest.mark.django_db
def test_the_api_takes_the_period_a_document_covers_and_refuses_one_that_ends_before_it_starts(
    client: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(analyst)
    note = b"# Quarterly outlook\n\nOur Q3 2024-25 view on credit growth is 14 per cent.\n"
    with django_capture_on_commit_callbacks(execute=False):
        bad = client.post(
            "/api/v1/research/documents",
            {"files": [SimpleUploadedFile("q3.md", note)], "period_start": "2024-12-31", "period_end": "2024-10-01"},
        )
        good = client.post(
            "/api/v1/research/documents",
            {"files": [SimpleUploadedFile("q3.md", note)], "period_start": "2024-10-01", "period_end": "2024-12-31"},
        )
    assert bad.status_code == 400 and "cannot end before it starts" in bad.json()["period_end"][0]
    created = good.json()["created"][0]
    assert (good.status_code, created["period_start"], created["period_end"]) == (201, "2024-10-01", "2024-12-31")
