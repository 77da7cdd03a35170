"""The pure parts of answering from statement cells: what a question asks (operation, concepts,
period), which column a period names, and the verifier's re-reading of a cell from its passage —
including a tampered value, a row missing from the passage and a row cut between two passages."""

from __future__ import annotations

import datetime as dt

from research.agent.dialogue.planner import plan_rules
from research.agent.question.statements import best_rows, item_rows, parse_ask, pick_cell, prior_cell
from research.agent.verify.cells import check_cell
from research.retrieval.statement_terms import BY_KEY, concepts_asked, label_rank

LINE = "Payments for acquisition of property, plant and equipment (8,796) (7,419)"
CELLS = [
    {"label": "Three Months Ended July 1, 2023", "end": "2023-07-01", "year": 2023, "months": 3, "value": "1"},
    {"label": "Three Months Ended June 25, 2022", "end": "2022-06-25", "year": 2022, "months": 3, "value": "2"},
    {"label": "Nine Months Ended July 1, 2023", "end": "2023-07-01", "year": 2023, "months": 9, "value": "3"},
    {"label": "Nine Months Ended June 25, 2022", "end": "2022-06-25", "year": 2022, "months": 9, "value": "4"},
]


def _claim(**extra: object) -> dict[str, object]:
    return {"id": "c1", "kind": "cell", "chunk_id": 7, "line": LINE, "quote_figure": "8,796", "value": -8796.0} | extra


def test_questions_are_read_as_statement_operations() -> None:
    capex = parse_ask("What was Apple's capital expenditure in the nine months ended July 1, 2023?")
    assert capex is not None and (capex.op, capex.concepts, capex.months, capex.end) == (
        "value",
        ("capex",),
        9,
        dt.date(2023, 7, 1),
    )
    margin = parse_ask("What was Apple's gross margin percentage in Q3 2023?")
    assert (
        margin is not None
        and margin.op == "ratio"
        and margin.ratio
        == (
            "gross_profit",
            "revenue",
            "gross margin percentage",
            "pct",
        )
    )
    assert (margin.months, margin.year) == (3, 2023)
    growth = parse_ask("By how much did services revenue grow year over year?")
    assert growth is not None and growth.op == "growth"
    test = parse_ask("Did any segment exceed 20% of revenue?")
    assert test is not None and (test.op, test.threshold, test.group) == ("share_test", 20.0, "segment")
    assert parse_ask("What did the MPC decide about the repo rate?") is None


def test_the_vocabulary_matches_how_filers_print_a_line() -> None:
    assert [c.key for c in concepts_asked("capex")] == ["capex"]
    assert [c.key for c in concepts_asked("What was the cost of net sales?")] == ["cost_of_revenue"]
    # Comparable, same-store and systemwide sales are operating measures no statement line prints.
    for measure in ("U.S. comparable sales", "comparable store sales", "same-store sales", "Systemwide sales"):
        assert concepts_asked(f"How much did McDonald's {measure} increase?") == [], measure
    assert [c.key for c in concepts_asked("What were McDonald's total sales?")] == ["revenue"]
    assert [c.key for c in concepts_asked("How much did sales grow?")] == ["revenue"]
    # What remains under a repurchase authority is not what was repurchased (a cash-flow line).
    assert concepts_asked("How much remained under Adobe's stock repurchase authority?") == []
    assert concepts_asked("How large is the share repurchase program?") == []
    assert [c.key for c in concepts_asked("How much did Adobe spend on stock repurchases?")] == ["buybacks"]
    assert [c.key for c in concepts_asked("What were share repurchases in the quarter?")] == ["buybacks"]
    assert label_rank(BY_KEY["capex"], "Payments for acquisition of property, plant and equipment") == 0
    assert label_rank(BY_KEY["capex"], "Purchases of property and equipment") == 0
    assert label_rank(BY_KEY["capex"], "Purchases of marketable securities") is None
    assert label_rank(BY_KEY["revenue"], "Total net sales") == 0
    assert label_rank(BY_KEY["diluted_eps"], "EARNINGS PER SHARE-DILUTED") is not None
    assert label_rank(BY_KEY["gross_profit"], "Gross pro-t") is not None  # a ligature lost by the PDF text
    assert label_rank(BY_KEY["operating_income"], "Income from operations") is not None


def test_the_period_asked_picks_the_column_and_its_year_earlier_twin() -> None:
    nine = parse_ask("capex in the nine months ended July 1, 2023")
    assert nine is not None and pick_cell(CELLS, nine) is CELLS[2]
    quarter = parse_ask("capex in Q3 2023")
    assert quarter is not None and pick_cell(CELLS, quarter) is CELLS[0]
    assert prior_cell(CELLS, CELLS[0]) is CELLS[1] and prior_cell(CELLS, CELLS[2]) is CELLS[3]
    # A period the table does not have is not swapped for another one.
    for question in ("capex in fiscal 2021", "capex in the six months ended July 1, 2023", "capex on March 31, 2023"):
        ask = parse_ask(question)
        assert ask is not None and pick_cell(CELLS, ask) is None, question
    undated = parse_ask("capex")
    assert undated is not None and pick_cell(CELLS, undated) is CELLS[0]


def test_statement_questions_go_to_the_library_and_plain_ticker_questions_do_not() -> None:
    ruled = plan_rules("What was Apple's capital expenditure in the nine months ended July 1, 2023?")
    assert ruled is not None and ruled[0] == "statement" and "rag_search" in ruled[1]
    market = plan_rules("What is AAPL's EPS?")
    assert market is not None and market[0] == "fundamentals"


def test_the_verifier_re_reads_a_cell_from_its_passage() -> None:
    passage = {7: f"Investing activities: Purchases of marketable securities (20,956) (70,178) {LINE} Other (753)"}
    assert check_cell(_claim(), passage) is None
    assert "prints -8796" in str(check_cell(_claim(value=8796.0), passage))  # the sign of (8,796)
    assert "does not hold the table row" in str(check_cell(_claim(), {7: "Other (753) (1,352)"}))
    assert "does not print" in str(check_cell(_claim(quote_figure="8,797"), passage))
    # Digits inside a printed figure are not a figure the row prints: "796" of "(8,796)", "7,41" of "(7,419)".
    for inside in ("796", "8", "7,41", "419"):
        assert "does not print" in str(
            check_cell(_claim(quote_figure=inside, value=-float(inside.replace(",", ""))), passage)
        )


def test_a_row_cut_between_two_passages_is_read_across_both() -> None:
    first = "Greater China: Net sales $ 15,758 $"
    second = "Net sales $ 15,758 $ 14,604 $ 57,475 $ 58,730 Operating income"  # repeats the first's end
    claim = _claim(line="Net sales $ 15,758 $ 14,604 $ 57,475 $ 58,730", quote_figure="14,604", value=14604.0)
    assert check_cell(claim, {7: first, 8: second}) is not None  # without the next passage: not held
    assert check_cell(claim | {"chunk_next": 8}, {7: first, 8: second}) is None
    assert check_cell(claim | {"chunk_next": 8}, {7: first, 8: "14,604 $ 57,475 $ 58,730"}) is None


def test_a_line_the_question_names_word_for_word_wins_over_the_concepts_total() -> None:
    # Costco's Q3 FY2023 income statement (p. 3): both lines print revenue; "net sales" is one of them.
    rows = [
        {"label": "REVENUE: Total revenue", "statement": "income_statement", "order": 3, "chunk_id": 7},
        {"label": "REVENUE: Net sales", "statement": "income_statement", "order": 1, "chunk_id": 7},
    ]
    asked = "What were Costco's net sales in the third quarter of fiscal 2023?"
    assert [r["order"] for r in best_rows("revenue", rows, asked)] == [1, 3]
    assert [r["order"] for r in best_rows("revenue", rows, "What was Costco's total revenue?")] == [3, 1]
    # Apple's 10-Q: "net sales" in a margin question is the income statement's total, not the
    # Americas segment's "Net sales" line of the segment note (p. 16).
    apple = [
        {"label": "Americas: Net sales", "statement": "segment_note", "order": 1, "chunk_id": 9},
        {"label": "Total net sales", "statement": "income_statement", "order": 2, "chunk_id": 4},
    ]
    margin = "What was Apple's operating margin (operating income as a share of net sales) in Q3 FY2023?"
    assert [r["order"] for r in best_rows("revenue", apple, margin)] == [2, 1]


def test_a_bare_total_row_is_not_a_line_the_question_names() -> None:
    # Adobe's 10-Q revenue note (p. 10) ends its table with a row labelled just "Total": "total
    # revenue" in a question names revenue, not that row.
    note_total = {"label": "Total", "section": "", "caption": "Revenue", "statement": "note", "document_id": 2}
    subscription = {"label": "Subscription", "section": "", "caption": "Revenue", "statement": "note", "document_id": 2}
    asked = "What was Adobe's total revenue and its subscription revenue for the quarter ended June 2, 2023?"
    assert [r["label"] for r in item_rows(asked, BY_KEY["revenue"], [note_total, subscription])] == ["Subscription"]


def test_best_rows_and_item_rows_agree_on_which_line_a_question_names() -> None:
    # One rule (statement_question._named) for both: every word of a label of three words or more
    # names it, in any order.
    rows = [
        {"label": "Purchases of property and equipment", "statement": "cash_flow", "order": 1, "chunk_id": 5},
        {"label": "Capital expenditures for property", "statement": "cash_flow", "order": 2, "chunk_id": 5},
    ]
    asked = "What were the capital expenditures for the year on property?"
    assert [r["order"] for r in best_rows("capex", rows, asked)] == [2, 1]
    assert [r["order"] for r in best_rows("capex", rows, "How much was spent on capex?")] == [1, 2]
