"""Ingestion's database process gives way to the embedding model while it embeds, and gets its
priority back before the connection goes back to the pool."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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


def test_ingestion_writes_its_passages_at_the_lowest_priority(
    db: Any, admin_user: Any, monkeypatch: Any, settings: Any
) -> None:
    settings.RESEARCH_EMBED_PROGRESS_STEP = 2
    seen: list[int] = []
    real = pipeline.embed_ahead

    def watched(texts: Sequence[str], **kwargs: Any) -> Iterator[Any]:
        for step in real(texts, **kwargs):
            seen.append(cpu_share.backend_nice(backend_pid()))  # as the service writes this step
            yield step

    monkeypatch.setattr(pipeline, "embed_ahead", watched)
    text = " ".join(f"Sentence {i} says the repo rate was held." for i in range(120))
    document = document_upload(user=admin_user, files=[UploadFile(name="held.txt", data=text.encode())]).created[0]
    assert document_ingest(document_id=document.pk).status == "done"
    assert len(seen) >= 2 and set(seen) == {19}
    assert cpu_share.backend_nice(backend_pid()) == 0
