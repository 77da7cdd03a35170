"""The filings golden set (issue 18) on the deterministic engine, over the ten SEC filings shipped in
``data/filings`` uploaded as PDFs.

Acceptance: at least 40 hand-written questions (statement metrics, calculations over cells, text,
yes/no needing a calculation) with their figures and PDF pages; the evidence page is in the top 5
passages for ≥ 90 % of them and ≥ 80 % of the answers are correct with the exact PDF page. Every
failure is listed with its reason in the assertion and in ``test-artifacts/filings_golden.md``.
The targets are ``TOP5_TARGET`` and ``CORRECT_TARGET`` in ``filings_golden.py``; while a figure is
below its target it is a known gap of the evaluation gate (``evaluation/gaps.py``) and may not fall
below the floor listed there.
"""

from __future__ import annotations

import json
from typing import Any

import pypdf
import pytest

from evaluation import suites
from evaluation.gaps import KNOWN_GAPS
from tests.research.agent.filings_golden import CORRECT_TARGET, KINDS, TOP5_TARGET, FilingsRunner, load_suite, report
from tests.research.corpus import FILINGS, filings_manifest

FILERS = {"apple", "adobe", "costco", "ebay", "intel", "mcdonalds"}


def test_the_filings_suite_is_well_formed_and_large_enough() -> None:
    suite = load_suite()
    assert suite["suite"] == "filings" and suite["version"] == 1
    cases = suite["cases"]
    assert len(cases) >= 45 and len({c["id"] for c in cases}) == len(cases)
    assert len(suites.load("filings")) == len(cases)  # every case validates as an evaluation case
    manifest = {entry["file"]: entry for entry in filings_manifest()}
    # The page counts are read with pypdf here, not taken from the code under test.
    pages = {name: len(pypdf.PdfReader(FILINGS / name).pages) for name in manifest}
    assert {name: entry["pages"] for name, entry in manifest.items()} == pages
    used = set()
    for case in cases:
        assert case["tags"][0] in KINDS and set(case["tags"]) & FILERS, case["id"]
        assert len(case["source"]) > 30 and len(case["turns"]) == 1, case["id"]
        expect = case["turns"][0]["expect"]
        name = f"{expect['document']}.pdf"
        assert name in manifest and (FILINGS / name).exists(), case["id"]
        for page in [expect["pdf_page"], *expect.get("also_pdf_pages", [])]:
            assert 1 <= page <= pages[name], (case["id"], page)
        assert expect["figures"] or expect.get("contains"), case["id"]
        assert ("yes_no" in expect) == (case["tags"][0] == "yes-no"), case["id"]
        used.add(name)
    assert used == set(manifest)  # every shipped filing of the set is asked about
    kinds = [c["tags"][0] for c in cases]
    assert kinds.count("statement-metric") >= 15 and kinds.count("calculation") >= 10
    assert kinds.count("text") >= 8 and kinds.count("yes-no") >= 3
    assert len({t for c in cases for t in c["tags"]} & FILERS) >= 5


def test_the_manifest_holds_the_shipped_files_with_their_hashes() -> None:
    import hashlib

    for entry in filings_manifest():
        assert hashlib.sha256((FILINGS / entry["file"]).read_bytes()).hexdigest() == entry["sha256"]
    assert json.loads((FILINGS / "manifest.json").read_text())  # valid JSON, not empty


@pytest.mark.django_db
def test_filings_golden_set_on_the_deterministic_engine(
    filings_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.conftest import ARTIFACTS

    runner = FilingsRunner(make_user, django_capture_on_commit_callbacks, filings_library)
    results = runner.run_all(load_suite()["cases"])
    text = report(results)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "filings_golden.md").write_text(text + "\n")
    print(text)
    top5 = sum(r.evidence for r in results) / len(results)
    correct = sum(r.correct for r in results) / len(results)
    # Each figure meets its target, or — while it is a known gap of the evaluation gate — does not
    # fall below the floor listed there (the gate's own rule; the target is never lowered).
    for key, measured, target in (
        ("filings_evidence_top5", top5, TOP5_TARGET),
        ("filings_answer_correctness", correct, CORRECT_TARGET),
    ):
        gap = KNOWN_GAPS.get(key)
        assert measured >= (gap["floor"] if gap else target), f"{key}: {measured:.1%}\n{text}"
    # "Verified" means the figures trace and the answer answers the question: no wrong answer
    # over these filings may be shown as verified (there were 5, then 3, then none).
    wrong = [r.case for r in results if r.verified and not r.correct]
    assert wrong == [], f"wrong answers shown as verified: {wrong}\n{text}"
