"""Faithfulness: every quote an answer shows is verbatim in something the turn retrieved — a
passage, a web result's snippet, or a statement-table row (whose words the stored passage holds)."""

from __future__ import annotations

from evaluation.verdicts import _faithful

ROW = "Services 21,213 19,604 62,886 58,941"  # Apple's Q3 2023 10-Q, PDF p. 4, as the passage prints it


def _step(**outputs: object) -> dict[str, object]:
    return {"node": "rag_search", "outputs": {"passages": [], **outputs}}


def test_a_quoted_statement_row_is_faithful_to_the_row_the_search_returned() -> None:
    answer = f"Services was 25.93% of revenue. “{ROW}” [Source: Apple Inc. Form 10-Q, p. 1 (PDF p. 4)]"
    assert _faithful(answer, [_step(statement_rows=[{"quote": ROW}])]) is True
    # Not returned by any retrieval step: not faithful.
    assert _faithful(answer, [_step(statement_rows=[{"quote": "Products 60,584 63,355"}])]) is False
    # A row of another step than retrieval does not count.
    assert _faithful(answer, [{"node": "planner", "outputs": {"statement_rows": [{"quote": ROW}]}}]) is False


def test_quotes_are_checked_against_passages_and_answers_without_quotes_are_not_judged() -> None:
    passage = {"text": "The Committee decided to keep the policy repo rate unchanged at 6.50 per cent."}
    answer = "“keep the policy repo rate unchanged at 6.50 per cent” [Source: RBI MPC Minutes, p. 2]"
    assert _faithful(answer, [_step(passages=[passage])]) is True
    assert _faithful(answer.replace("6.50", "6.25"), [_step(passages=[passage])]) is False
    assert _faithful("No quote here.", [_step(passages=[passage])]) is None
