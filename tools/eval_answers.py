"""Dump every evaluation answer of the newest run of each suite, to compare two versions word for word.

    ALPHADESK_VAR_DIR=var/eval-gate .venv/bin/python tools/eval_answers.py before.json
    (change the code, run make eval-gate)
    ALPHADESK_VAR_DIR=var/eval-gate .venv/bin/python tools/eval_answers.py after.json && cmp before.json after.json

Each case's answers, claims, citations and verdicts are kept; timings and ids that differ from run to
run (latency, trace and turn ids) are left out, so two runs of the same code on the same database
dump the same bytes. A suite whose newest run did not finish is an error: a comparison must not pass
over a run that failed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Run to run, these differ for the same answer.
VOLATILE = {"latency_ms", "trace", "ms", "seconds", "conversation_id", "turn_id", "run_id", "created_at", "brief_id"}
VOLATILE |= {"id", "ids"}


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def dump() -> dict[str, Any]:
    from evaluation.models import EvalRun

    out: dict[str, Any] = {}
    for suite in sorted(set(EvalRun.objects.values_list("suite", flat=True))):
        run = EvalRun.objects.filter(suite=suite).order_by("-pk").first()
        if run is None:
            continue
        if run.status != "done":
            raise SystemExit(f"{suite}: the newest run (#{run.pk}) is {run.status}: {run.error[:200]}")
        for r in run.cases.order_by("seq"):
            key = f"{suite}/{r.case_id}/{r.variant}"
            out[key] = {"outcome": r.outcome, "actual": _stable(r.actual), "verdicts": r.verdicts}
    return out


def main(path: str) -> None:
    import django

    django.setup()
    answers = dump()
    Path(path).write_text(json.dumps(answers, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n")
    print(f"{len(answers)} cases written to {path}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: tools/eval_answers.py OUT.json")
    main(sys.argv[1])
