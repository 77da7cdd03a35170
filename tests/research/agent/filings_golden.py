"""Running the filings golden set (``evaluation/suites/filings_golden.json``) and measuring it.

Each case is one question about one shipped filing (``data/filings``). Two measures per question:

* **evidence in the top 5** — the expected PDF page of the expected filing is among the first five
  passages of the turn's first document search (read from its stored trace step), or among the first
  five statement-table rows a step returned;
* **correct** — the answer was given (not escalated), states every expected figure (the evaluation's
  number normalisation: "81,797", "$81,797 million" and "81797" are one figure; a scale change such as
  "$81.8 billion" is *not* accepted for a cell quoted in millions, and a calculated "44.5%" is met by
  any shown value within ±0.05), says the expected yes/no where the case asks one, and cites the
  expected filing on the expected **PDF page** (or one of ``also_pdf_pages``).

The judging is the evaluation's own (``evaluation.verdicts.judge_turn``), so this harness and the
``filings`` evaluation suite count the same way. Expected values were written by hand from the PDFs
(each case's ``source`` says where), never from this code's output.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.research.agent.golden import Runner
from tests.research.agent.golden import _why as why

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "evaluation" / "suites" / "filings_golden.json"
# The acceptance targets on the deterministic engine (issue 18).
TOP5_TARGET = 0.90
CORRECT_TARGET = 0.80
KINDS = ("statement-metric", "calculation", "text", "yes-no")


def load_suite() -> dict[str, Any]:
    suite: dict[str, Any] = json.loads(SUITE.read_text())
    return suite


@dataclass
class Result:
    case: str
    kind: str
    ask: str
    evidence: bool = False
    correct: bool = False
    problems: list[str] = field(default_factory=list)
    answer: str = ""
    verified: bool = False  # shown to the analyst as verified (figures traced AND the question answered)


def _group(problem: str) -> str:
    """The reason group a problem belongs to (for the report's summary)."""
    for prefix, group in (
        ("ended escalated", "escalated to a reviewer"),
        ("ended no_document", "answered that no document holds it"),
        ("ended", "ended otherwise"),
        ("raised", "the turn raised"),
        ("missing figure", "expected figure not stated"),
        ("missing text", "expected text not stated"),
        ("did not cite", "did not cite the filing"),
        ("cited no expected", "no citation of the expected PDF page"),
        ("said", "wrong or no yes/no"),
        ("expected page not in the top 5", "evidence page not in the top 5"),
    ):
        if problem.startswith(prefix):
            return group
    return "other"


class FilingsRunner(Runner):
    """Asks each question as one analyst, in-process as the worker would, and judges the stored turn."""

    def judge(self, case: dict[str, Any], turn: Any) -> Result:
        from evaluation import chat, suites, verdicts

        spec = suites.ChatCase.model_validate(case).turns[0]
        snap = chat.snapshot(turn)
        judged, _ = verdicts.judge_turn(spec.expect, snap, chat.chunks_for([snap]), spec.ask, self.stems)
        problems = [p for p in verdicts.reason(judged, spec.expect).split("; ") if p]
        if judged["outcome"] != "answered" and turn.review_task_id:
            problems = [f"{problems[0]} ({why(turn)})", *problems[1:]]
        return Result(
            case["id"],
            case["tags"][0],
            spec.ask,
            evidence=bool(judged["evidence_top5"]),
            correct=bool(judged["correct"]),
            problems=problems,
            answer=snap["answer"],
            verified=(snap["verification"] or {}).get("status") == "verified",
        )

    def run_all(self, cases: list[dict[str, Any]]) -> list[Result]:
        user = self.make_user("analyst", email="filings-golden@example.test")
        results = []
        for case in cases:
            try:
                turn = self.ask(user, case["turns"][0]["ask"], None)
            except Exception as exc:  # a crash is a failed answer with its reason, not a stopped suite
                failed = Result(case["id"], case["tags"][0], case["turns"][0]["ask"], problems=[f"raised {exc!r}"])
                results.append(failed)
                continue
            results.append(self.judge(case, turn))
        return results


PRIMARY = (  # the first that applies names a failing question's main reason
    ("raised", "the turn raised"),
    ("ended escalated", "escalated to a reviewer"),
    ("ended", "not answered (no document or another ending)"),
    ("did not cite", "answered from another filing, or cited none"),
    ("cited no expected", "cited the right filing on another page"),
    ("missing", "cited the expected page but the figure or text is not stated"),
    ("said", "cited the expected page but the yes/no is wrong or missing"),
    ("expected page not in the top 5", "correct, but the evidence page was not in the top 5"),
)


def primary_reason(problems: list[str]) -> str:
    return next((name for prefix, name in PRIMARY if any(p.startswith(prefix) for p in problems)), "other")


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / max(1, total):.1%})"


def report(results: list[Result]) -> str:
    """The Markdown report: the two figures, per kind, the failure reasons grouped, every failure."""
    n = len(results)
    top5, correct = sum(r.evidence for r in results), sum(r.correct for r in results)
    lines = [
        "# Filings golden set on the deterministic engine",
        "",
        f"- evidence page in the top 5 passages: **{_share(top5, n)}** (target {TOP5_TARGET:.0%})",
        f"- answers correct with the expected PDF page: **{_share(correct, n)}** (target {CORRECT_TARGET:.0%})",
        f"- wrong answers shown as verified: **{sum(r.verified and not r.correct for r in results)}**",
        "",
        "| kind | questions | evidence in top 5 | correct |",
        "|---|---|---|---|",
    ]
    for kind in KINDS:
        rows = [r for r in results if r.kind == kind]
        lines.append(
            f"| {kind} | {len(rows)} | {_share(sum(r.evidence for r in rows), len(rows))} "
            f"| {_share(sum(r.correct for r in rows), len(rows))} |"
        )
    primary = Counter(primary_reason(r.problems) for r in results if r.problems)
    lines += ["", "## Main reason of each failing question", ""]
    lines += [f"- {name}: {count}" for name, count in primary.most_common()]
    groups = Counter(_group(p) for r in results for p in r.problems)
    lines += ["", "## Every reason (questions per reason; a question can have several)", ""]
    lines += [f"- {group}: {count}" for group, count in groups.most_common()]
    lines += ["", "## Every question that failed", ""]
    for r in results:
        if r.problems:
            shown = "shown as verified" if r.verified else "not shown as verified"
            lines.append(f"- `{r.case}` ({r.kind}, {shown}) — {r.ask}")
            lines.append(f"  - {'; '.join(r.problems)}")
            lines.append(f"  - answer: {' '.join(r.answer.split())[:300] or '(none)'}")
    return "\n".join(lines)
