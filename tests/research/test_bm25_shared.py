"""One BM25 index shared by every process: a worker process ingests and publishes, this process
maps the new version on its next query (no rebuilding here); deletions change it everywhere; a
writer killed between building and publishing changes nothing readers see; missing files are
rebuilt from the database by the first process that needs them."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
from django.conf import settings
from django.core.management import call_command
from rank_bm25 import BM25Okapi

from research.models import Chunk, Document
from research.retrieval.bm25 import LAST_PUBLISH, corpus_version, process_index, store_root
from research.retrieval.bm25_store import FORMAT
from research.retrieval.text import tokenize
from research.selectors import passage_search
from research.services import UploadFile, document_delete, document_ingest, document_upload
from tests.conftest import ROOT, test_database_url
from tests.research.conftest import ingest

QUOKKA = b"# Quokka desk note\n\nThe quokka swap line was extended by 40 basis points.\n\nLiquidity stayed ample."
WOMBAT = b"# Wombat desk note\n\nThe wombat corridor was narrowed.\n\nLiquidity stayed ample in the corridor."


def bm25(user: Any, query: str) -> list[int]:
    return [p.chunk.document_id for p in passage_search(user=user, query=query, mode="bm25")]


@pytest.mark.worker
def test_a_document_ingested_by_the_worker_is_searchable_here_within_two_seconds(
    celery_worker: Any, make_user: Any
) -> None:
    user = make_user("analyst")
    assert bm25(user, "quokka swap") == []  # maps the current version in this process
    mapped = process_index.version
    LAST_PUBLISH.clear()
    note = document_upload(user=user, files=[UploadFile(name="quokka.md", data=QUOKKA)]).created[0]
    deadline = time.monotonic() + 180
    while not (hits := bm25(user, "quokka swap")) and time.monotonic() < deadline:
        assert Document.objects.get(pk=note.pk).status != "failed"
        time.sleep(0.02)
    found_at = time.time()
    assert hits == [note.pk]
    done = Document.objects.get(pk=note.pk)
    # ingested_at is set in the worker's transaction before the index is published and committed.
    assert done.status == "done" and done.ingested_at is not None
    lag = found_at - done.ingested_at.timestamp()
    assert lag <= 2.0, f"searchable here {lag:.2f} s after the worker stored it"
    assert process_index.version != mapped
    stored = process_index.stored
    assert stored is not None and stored.manifest.built_by["pid"] != os.getpid()  # the worker built it
    assert LAST_PUBLISH == {}  # and this process built nothing
    assert isinstance(stored.segments[-1].post_rows.base, np.memmap)  # mapped, not copied


@pytest.mark.django_db
def test_deleting_a_document_takes_it_out_of_bm25_and_out_of_its_statistics(analyst: Any) -> None:
    quokka = ingest(analyst, "quokka.md", QUOKKA)
    wombat = ingest(analyst, "wombat.md", WOMBAT)
    assert bm25(analyst, "quokka swap") == [quokka.pk]
    gone = set(Chunk.objects.filter(document=quokka).values_list("id", flat=True))
    document_delete(user=analyst, document=quokka)
    assert LAST_PUBLISH["mode"] == "changes" and LAST_PUBLISH["removed"] == len(gone)  # no full scan
    assert bm25(analyst, "quokka swap") == []
    assert bm25(analyst, "wombat corridor") == [wombat.pk]
    index = process_index.get()
    remaining = list(Chunk.objects.order_by("id").values_list("id", "text"))
    assert index.ids.tolist() == [cid for cid, _ in remaining] and not gone & set(index.ids.tolist())
    # The statistics are the remaining library's: scores equal BM25Okapi over what is left.
    reference = BM25Okapi([tokenize(text) for _, text in remaining])
    for query in ("liquidity stayed ample", "corridor", "quokka"):
        np.testing.assert_allclose(index.scores(query), reference.get_scores(tokenize(query)), rtol=1e-9, atol=1e-12)


CRASH = """
import os, sys
import django

django.setup()
from research.retrieval import bm25_store

real_publish_dir = bm25_store.publish_dir


def die_before_publishing_a_version(stage, target):
    if target.parent.name == "versions":
        os._exit(17)  # killed after building the version's files, before the rename
    return real_publish_dir(stage, target)


bm25_store.publish_dir = die_before_publishing_a_version
from research.services import document_ingest

document_ingest(document_id=int(sys.argv[1]))
"""


def test_a_writer_killed_between_building_and_publishing_changes_nothing_readers_see(
    transactional_db: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("research.services._enqueue_ingest", lambda document_id: True)  # no worker
    user = make_user("analyst")
    wombat = document_upload(user=user, files=[UploadFile(name="wombat.md", data=WOMBAT)]).created[0]
    document_ingest(document_id=wombat.pk)
    quokka = document_upload(user=user, files=[UploadFile(name="quokka.md", data=QUOKKA)]).created[0]
    version = corpus_version()
    assert bm25(user, "wombat corridor") == [wombat.pk]
    env = {**os.environ, "DATABASE_URL": test_database_url(), "REDIS_URL": settings.REDIS_URL}
    child = subprocess.run(
        [sys.executable, "-c", CRASH, str(quokka.pk)], cwd=ROOT, env=env, capture_output=True, timeout=300
    )
    assert child.returncode == 17, child.stderr.decode()[-3000:]

    assert corpus_version() == version  # the transaction died with the process
    assert Document.objects.get(pk=quokka.pk).status == "processing"
    assert not Chunk.objects.filter(document=quokka).exists()
    root = store_root()
    staged = [p.name for p in (root / "tmp").iterdir()]
    assert any(name.startswith("version-") for name in staged)  # built, never published
    assert max(int(p.name) for p in (root / "versions").iterdir()) == version
    assert bm25(user, "wombat corridor") == [wombat.pk] and bm25(user, "quokka swap") == []
    # The retried task starts over and succeeds; every process then finds the document.
    assert document_ingest(document_id=quokka.pk).status == "done"
    assert bm25(user, "quokka swap") == [quokka.pk]


@pytest.mark.django_db
def test_a_version_without_files_is_built_from_the_database_by_the_first_process_that_needs_it(analyst: Any) -> None:
    quokka = ingest(analyst, "quokka.md", QUOKKA)
    shutil.rmtree(store_root())  # e.g. a new machine whose worker has not shared its directory
    process_index.reset()
    LAST_PUBLISH.clear()
    assert bm25(analyst, "quokka swap") == [quokka.pk]
    stored = process_index.stored
    assert stored is not None and stored.manifest.built_by["pid"] == os.getpid()
    assert LAST_PUBLISH["added"] == Chunk.objects.count() and stored.manifest.version == corpus_version()


@pytest.mark.django_db
def test_a_version_written_in_another_format_is_rebuilt(analyst: Any) -> None:
    quokka = ingest(analyst, "quokka.md", QUOKKA)
    manifest = store_root() / "versions" / str(corpus_version()) / "manifest.json"
    current = f'"format": {FORMAT}'
    manifest.write_text(manifest.read_text().replace(current, f'"format": {FORMAT - 1}'))
    process_index.reset()
    assert bm25(analyst, "quokka swap") == [quokka.pk]
    assert current in manifest.read_text()  # published again, in this release's format


@pytest.mark.django_db
def test_chunks_changed_behind_the_services_back_are_reconciled_at_the_next_publish(analyst: Any) -> None:
    quokka = ingest(analyst, "quokka.md", QUOKKA)
    Chunk.objects.filter(document=quokka).delete()  # e.g. a bulk delete from a shell: no new version
    wombat = ingest(analyst, "wombat.md", WOMBAT)  # the next publish notices the count is off
    assert LAST_PUBLISH["mode"] == "reconciled"
    index = process_index.get()
    assert index.ids.tolist() == list(Chunk.objects.order_by("id").values_list("id", flat=True))
    assert bm25(analyst, "quokka swap") == [] and bm25(analyst, "wombat corridor") == [wombat.pk]


@pytest.mark.django_db
def test_bm25_rebuild_publishes_one_segment_without_deleted_rows_and_the_same_ranking(analyst: Any) -> None:
    quokka = ingest(analyst, "quokka.md", QUOKKA)
    wombat = ingest(analyst, "wombat.md", WOMBAT)
    call_command("bm25_rebuild", stdout=io.StringIO())  # both notes in one segment
    document_delete(user=analyst, document=quokka)
    before = process_index.get()
    assert len(before.parts) == 1 and len(before.parts[0][1]) == 1  # quokka's row is marked, not rewritten
    ranking = before.top("liquidity stayed ample corridor", 10)
    out = io.StringIO()
    call_command("bm25_rebuild", stdout=out)
    after = process_index.get()
    assert process_index.version == corpus_version() and f"version {corpus_version()}" in out.getvalue()
    assert len(after.parts) == 1 and len(after.parts[0][1]) == 0  # nothing deleted left in it
    assert after.top("liquidity stayed ample corridor", 10) == ranking
    assert bm25(analyst, "wombat corridor") == [wombat.pk]
