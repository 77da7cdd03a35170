"""The filings golden set (issue 18) is well formed: at least 45 hand-written questions over the ten
SEC filings shipped in ``data/filings`` (statement metrics, calculations over cells, text, yes/no),
each with its figures and PDF pages, and the shipped files match their manifest. The evaluation gate
runs the set (``make eval-gate``): evidence page in the top 5 ≥ 90 %, answers correct ≥ 80 %, and no
wrong answer shown as verified."""

from __future__ import annotations

import json

import pypdf

from evaluation import suites
from tests.research.agent.filings_golden import KINDS, load_suite
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
