"""First-contact suites: how the answers hold on documents nobody here tuned for.

Each suite's questions were written by hand from its documents before the system read them
(``evaluation/suites/first_contact/*.json`` says against which commit). Its documents are not
shipped: they are read from the shared data folder (``SHARED_DATA_DIR``, ``../shared/data`` by
default) and a suite whose documents are absent says so and runs nothing.

The library the questions are asked of is the whole one: the shipped corpus (a team reference set),
the shipped filings and every first-contact corpus, uploaded as a user would (the file, and for
minutes a title), private to the first-contact analyst so that no tuned suite sees them.

``evaluation/results/first_contact.json`` keeps each suite's first measured figures beside its
current ones forever: the first run of a suite writes both, later runs only the current ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings

from core.services import user_ensure
from evaluation import corpus
from research.models import Document
from research.services import UploadFile, document_ingest, document_upload

OWNER = "evaluation-first-contact@alphadesk.local"
# suite → (the folder under the shared data holding its documents, the files of it the suite reads)
CORPORA: dict[str, str] = {
    "first_contact_boe": "minutes/bank-of-england",
    "first_contact_boj": "minutes/bank-of-japan",
    "first_contact_filings": "filings",
}
SUITES = Path(__file__).resolve().parent / "suites" / "first_contact"
RESULTS = Path(__file__).resolve().parent / "results" / "first_contact.json"
REPORT = RESULTS.with_suffix(".md")


class CorpusMissing(RuntimeError):
    """The suite's documents are not on this machine (the shared data folder is absent)."""


def shared_dir() -> Path:
    return Path(settings.SHARED_DATA_DIR)


def documents_of(suite: str) -> list[tuple[Path, str]]:
    """(file, the title a user gives it) of every document the suite's questions are about."""
    folder = shared_dir() / CORPORA[suite]
    if not folder.is_dir():
        raise CorpusMissing(f"{suite}: its documents are not here ({folder} is absent); nothing was run")
    if suite == "first_contact_filings":
        header = json.loads((SUITES / "sec_filings.json").read_text())
        return [(folder / name, "") for name in header["documents"]]
    meta = json.loads((folder / "metadata.json").read_text())
    return [(folder / entry["file"], entry["title"]) for entry in meta]


def ensure_library() -> Any:
    """The first-contact analyst, owning (privately) every first-contact document present and the
    shipped filings, each ingested; the shipped corpus is a team set they see too. Idempotent."""
    corpus.ensure()
    owner, _ = user_ensure(email=OWNER, roles=["analyst"], password=None)
    files = [(p, "") for p in sorted(Path(settings.RESEARCH_FILINGS_DIR).glob("*.pdf"))]
    for suite in CORPORA:
        try:
            files += documents_of(suite)
        except CorpusMissing:
            continue
    for path, title in files:
        _upload(owner, path, title)
    return owner


def _upload(owner: Any, path: Path, title: str) -> None:
    result = document_upload(
        user=owner,
        files=[UploadFile(name=path.name, data=path.read_bytes())],
        visibility=Document.Visibility.PRIVATE,
        title=title,
    )
    if result.rejected:
        raise RuntimeError(f"{path.name}: {result.rejected[0][1]}")
    document = (result.created or result.duplicates)[0]
    if document.status != Document.Status.DONE:
        document = document_ingest(document_id=document.pk)
    if document.status != Document.Status.DONE:
        raise RuntimeError(f"{path.name}: {document.error}")


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """What a suite's turns read: how many were correct (coverage), how many were shown with both
    ticks and how many of those were right (precision of verified), and wrong ones shown verified."""
    turns = [r for r in records if r.get("kind") == "turn"]
    shown = [r for r in turns if r.get("verified_shown")]
    correct = sum(1 for r in turns if r.get("correct"))
    right_shown = sum(1 for r in shown if r.get("correct"))
    evidence = [r["evidence_top5"] for r in turns if r.get("evidence_top5") is not None]
    return {
        "turns": len(turns),
        "correct": correct,
        "coverage": round(correct / len(turns), 4) if turns else None,
        "shown_verified": len(shown),
        "precision_of_verified": round(right_shown / len(shown), 4) if shown else None,
        "wrong_shown_as_verified": len(shown) - right_shown,
        "escalated": sum(1 for r in turns if r.get("escalated")),
        "evidence_top5": round(sum(evidence) / len(evidence), 4) if evidence else None,
    }


def record(suite: str, run_id: int, commit: str, measured: str, figures: dict[str, Any]) -> dict[str, Any]:
    """Store ``figures`` as the suite's current ones, and as its first ones when it has none yet."""
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    entry = stored.setdefault(suite, {})
    now = {"run": run_id, "commit": commit, "measured": measured, **figures}
    entry.setdefault("first", now)
    entry["current"] = now
    RESULTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    REPORT.write_text(report(stored))
    return entry


def _pct(value: Any) -> str:
    return "—" if value is None else f"{value * 100:.1f} %"


def report(stored: dict[str, Any]) -> str:
    rows = [
        "# First-contact suites",
        "",
        "Questions written by hand from documents nobody here had tuned for, before the system read them "
        "(`evaluation/first_contact.py`; `make first-contact`). The first measured figures stay beside "
        "the current ones.",
        "",
        "| suite | when | commit | turns | correct (coverage) | shown verified | precision of verified "
        "| wrong shown verified | escalated | evidence page top 5 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for suite, entry in sorted(stored.items()):
        for when in ("first", "current"):
            f = entry[when]
            rows.append(
                f"| {suite} | {when} ({f['measured']}) | {f['commit']} | {f['turns']} "
                f"| {f['correct']} ({_pct(f['coverage'])}) | {f['shown_verified']} "
                f"| {_pct(f['precision_of_verified'])} | {f['wrong_shown_as_verified']} | {f['escalated']} "
                f"| {_pct(f['evidence_top5'])} |"
            )
    return "\n".join(rows) + "\n"
