"""Ingestion's database process gives way to the embedding model while it embeds, and gets its
priority back before the connection goes back to the pool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connection

from research.ingest import cpu_share, pipeline
from research.services import UploadFile, document_ingest, document_upload


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def test_the_local_database_process_runs_at_the_lowest_priority_only_within_the_block(db: Any) -> None:
    pid = backend_pid()
    assert cpu_share.backend_nice(pid) == 0
    with cpu_share.database_yields_to_model():
        assert cpu_share.backend_nice(pid) == cpu_share.YIELDING_NICE == 19
    assert cpu_share.backend_nice(pid) == 0


def test_an_error_inside_the_block_still_restores_the_priority(db: Any) -> None:
    pid = backend_pid()
    with pytest.raises(RuntimeError), cpu_share.database_yields_to_model():
        raise RuntimeError("the write failed")
    assert cpu_share.backend_nice(pid) == 0


def test_switched_off_or_on_another_machine_nothing_changes(db: Any, settings: Any, monkeypatch: Any) -> None:
    pid = backend_pid()
    settings.RESEARCH_INGEST_DB_YIELDS = False
    with cpu_share.database_yields_to_model():
        assert cpu_share.backend_nice(pid) == 0
    settings.RESEARCH_INGEST_DB_YIELDS = True
    monkeypatch.setitem(connection.settings_dict, "HOST", "db.internal.example")
    with cpu_share.database_yields_to_model():
        assert cpu_share.backend_nice(pid) == 0


def test_the_restore_waits_out_the_kernels_rate_limit(monkeypatch: Any) -> None:
    # Unprivileged, the kernel lets a process change an autogroup's nice once per 100 ms.
    answers: list[Any] = [BlockingIOError(), BlockingIOError(), None]
    calls: list[tuple[int, int]] = []

    def set_nice(pid: int, nice: int) -> None:
        calls.append((pid, nice))
        answer = answers.pop(0)
        if answer is not None:
            raise answer

    monkeypatch.setattr(cpu_share, "_set_backend_nice", set_nice)
    cpu_share._restore_backend_nice(4242, 0)
    assert calls == [(4242, 0)] * 3


def test_ingestion_writes_at_the_lowest_priority_until_the_model_starts_its_last_step(
    db: Any, admin_user: Any, monkeypatch: Any, settings: Any
) -> None:
    from research.retrieval.embeddings import get_embedder

    settings.RESEARCH_EMBED_CACHE_DIR = ""  # the model itself must run, not the embedding cache
    settings.RESEARCH_EMBED_PROGRESS_STEP = 2
    pid = backend_pid()
    nice_at_each_embed: list[int] = []
    embedder = get_embedder()
    real = embedder.embed_batches

    def watched(texts: Sequence[str], pieces: Any = None) -> Any:
        nice_at_each_embed.append(cpu_share.backend_nice(pid))  # read from the embedding thread
        yield from real(texts, pieces)

    monkeypatch.setattr(embedder, "embed_batches", watched)
    text = " ".join(f"Sentence {i} says the repo rate was held." for i in range(120))
    document = document_upload(user=admin_user, files=[UploadFile(name="held.txt", data=text.encode())]).created[0]
    done = document_ingest(document_id=document.pk)
    assert done.status == "done"
    steps = len(pipeline.embedding_steps(done.chunk_count))
    # The writes yield while the model has more than its last step to embed; as it starts the
    # last one, the writes still queued get their priority back to end beside it.
    assert steps >= 4 and nice_at_each_embed == [19] * (steps - 1) + [0]
    assert cpu_share.backend_nice(pid) == 0


def test_the_priority_comes_back_while_the_writer_is_still_on_an_earlier_step(
    db: Any, admin_user: Any, monkeypatch: Any, settings: Any
) -> None:
    # A write starved at the lowest priority must not hold the priority down: the model's last
    # step gives it back, whichever step this thread is still writing.
    import time

    from research.ingest import store

    settings.RESEARCH_EMBED_CACHE_DIR = ""
    settings.RESEARCH_EMBED_PROGRESS_STEP = 2
    settings.RESEARCH_EMBED_AHEAD_STEPS = 8
    pid = backend_pid()
    real_write = store._write_step
    waited: list[float] = []

    def slow_first_write(document_id: int, drafts: Any, ids: Any, ordinals: Any, vectors: Any) -> None:
        if not waited:  # stuck on the first batch until the priority is back (or give up after 10 s)
            began = time.monotonic()
            while cpu_share.backend_nice(pid) != 0 and time.monotonic() - began < 10:
                time.sleep(0.01)
            waited.append(time.monotonic() - began)
            assert cpu_share.backend_nice(pid) == 0
        real_write(document_id, drafts, ids, ordinals, vectors)

    monkeypatch.setattr(store, "_write_step", slow_first_write)
    text = " ".join(f"Sentence {i} says the repo rate was held." for i in range(120))
    document = document_upload(user=admin_user, files=[UploadFile(name="held.txt", data=text.encode())]).created[0]
    done = document_ingest(document_id=document.pk)
    assert done.status == "done" and len(pipeline.embedding_steps(done.chunk_count)) >= 3
    assert len(waited) == 1 and waited[0] < 10


def test_a_rate_limited_early_give_back_does_not_wait_and_the_block_end_restores(db: Any, monkeypatch: Any) -> None:
    import threading

    pid = backend_pid()
    real_set = cpu_share._set_backend_nice
    refusals = [BlockingIOError()]

    def rate_limited(target: int, nice: int) -> None:
        if nice == 0 and refusals:
            raise refusals.pop()
        real_set(target, nice)

    monkeypatch.setattr(cpu_share, "_set_backend_nice", rate_limited)
    with cpu_share.database_yields_to_model() as give_back:
        other = threading.Thread(target=give_back)  # as the embedding thread calls it
        other.start()
        other.join()
        assert not refusals and cpu_share.backend_nice(pid) == 19  # refused once, and it did not wait
        give_back()  # a second early call, no longer refused, gives it back
        assert cpu_share.backend_nice(pid) == 0
    assert cpu_share.backend_nice(pid) == 0


def test_the_block_can_give_the_priority_back_early_once(db: Any) -> None:
    pid = backend_pid()
    with cpu_share.database_yields_to_model() as give_back:
        assert cpu_share.backend_nice(pid) == 19
        give_back()
        assert cpu_share.backend_nice(pid) == 0
        give_back()  # a second call changes nothing (nor does the end of the block)
    assert cpu_share.backend_nice(pid) == 0


@pytest.mark.django_db(transaction=True)
def test_a_progress_line_does_not_wait_for_the_disk_and_changes_nothing_else(admin_user: Any, monkeypatch: Any) -> None:
    from django.db import transaction
    from django.test.utils import CaptureQueriesContext

    from research import services
    from research.models import Document
    from research.services import _set_progress

    # Nothing is queued: a Celery worker left running by an earlier test would otherwise ingest
    # the document (its rows are committed here) while this test writes its status.
    monkeypatch.setattr(services, "_enqueue_ingest", lambda document_id: True)
    document = document_upload(user=admin_user, files=[UploadFile(name="p.txt", data=b"Rates held.")]).created[0]
    with CaptureQueriesContext(connection) as queries:
        _set_progress(document.pk, 40, "Embedded 32 of 80 passages")
    assert [q["sql"] for q in queries][:2] == ["BEGIN", "SET LOCAL synchronous_commit TO OFF"]
    assert Document.objects.get(pk=document.pk).status_message == "Embedded 32 of 80 passages"
    with connection.cursor() as cursor:  # SET LOCAL ended with its own transaction
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
    # A status change, or a line written inside someone else's transaction, commits as usual.
    with CaptureQueriesContext(connection) as queries:
        _set_progress(document.pk, 100, "Failed", status=Document.Status.FAILED, error="no text")
        with transaction.atomic():
            _set_progress(document.pk, 100, "Failed again")
    assert not [q for q in queries if "synchronous_commit" in q["sql"]]
    assert Document.objects.get(pk=document.pk).status == Document.Status.FAILED


def test_the_gil_changes_hands_sooner_only_while_some_block_is_open() -> None:
    import sys
    import threading

    before = sys.getswitchinterval()
    assert before != cpu_share.INGEST_SWITCH_INTERVAL == 0.0005
    inside, release = threading.Event(), threading.Event()

    def other_ingestion() -> None:
        with cpu_share.model_threads_get_the_gil_sooner():
            inside.set()
            release.wait(5)

    other = threading.Thread(target=other_ingestion)
    with pytest.raises(RuntimeError), cpu_share.model_threads_get_the_gil_sooner():
        assert sys.getswitchinterval() == 0.0005
        other.start()
        assert inside.wait(5)
        raise RuntimeError("the write failed")
    # The other block is still open: the shorter interval stays until it ends too.
    assert sys.getswitchinterval() == 0.0005
    release.set()
    other.join()
    assert sys.getswitchinterval() == before


def test_ingestion_embeds_while_the_gil_changes_hands_sooner(
    db: Any, admin_user: Any, monkeypatch: Any, settings: Any
) -> None:
    import sys

    settings.RESEARCH_EMBED_CACHE_DIR = ""  # the model itself must run, not the embedding cache

    from research.retrieval.embeddings import get_embedder

    before, seen = sys.getswitchinterval(), []
    embedder = get_embedder()
    real = embedder.embed_batches

    def watched(texts: Sequence[str], pieces: Any = None) -> Any:
        seen.append(sys.getswitchinterval())
        yield from real(texts, pieces)

    monkeypatch.setattr(embedder, "embed_batches", watched)
    text = " ".join(f"Sentence {i} says the repo rate was held." for i in range(60))
    document = document_upload(user=admin_user, files=[UploadFile(name="held.txt", data=text.encode())]).created[0]
    assert document_ingest(document_id=document.pk).status == "done"
    assert seen and set(seen) == {cpu_share.INGEST_SWITCH_INTERVAL}
    assert sys.getswitchinterval() == before
