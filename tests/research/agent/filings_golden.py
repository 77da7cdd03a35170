"""The filings golden set (``evaluation/suites/filings_golden.json``): where it lives, the kinds of
question it holds and the issue's targets. The evaluation gate runs it (``make eval-gate``, suite
``filings``) and judges it with ``evaluation.verdicts.judge_turn``; the tests here check its shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "evaluation" / "suites" / "filings_golden.json"
KINDS = ("statement-metric", "calculation", "text", "yes-no")


def load_suite() -> dict[str, Any]:
    suite: dict[str, Any] = json.loads(SUITE.read_text())
    return suite
