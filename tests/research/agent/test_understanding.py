"""Question understanding, series navigation, tables, horizons and the relevance check, as pure
functions over a library that is not RBI's: generic for any dated document series."""

from __future__ import annotations

import datetime as dt

import pytest

from research.agent.compose.composer import Composer
from research.agent.dialogue.series import Move, move_asked, navigate, no_document_info, rewrite_for
from research.agent.question.horizons import horizon_asked
from research.agent.question.lexicon import METRICS, aspects_asked, metrics_asked, names_metric
from research.agent.question.library import LibDoc
from research.agent.question.periods import find_periods, mentions, quarter
from research.agent.question.understand import matching_documents, search_query, understand
from research.agent.text.tables import recount, vote_tables
from research.agent.verify.relevance import assess

D = dt.date
# A bank's board minutes (monthly, with a gap in May), its annual reports, and the analyst's own note.
LIBRARY = [
    LibDoc(
        1, "board_minutes", "Acme Bank Board Minutes, March 2024", D(2024, 3, 20), D(2024, 3, 12), D(2024, 3, 12), False
    ),
    LibDoc(
        2, "board_minutes", "Acme Bank Board Minutes, April 2024", D(2024, 4, 22), D(2024, 4, 15), D(2024, 4, 15), False
    ),
    LibDoc(
        3, "board_minutes", "Acme Bank Board Minutes, June 2024", D(2024, 6, 20), D(2024, 6, 11), D(2024, 6, 11), False
    ),
    LibDoc(
        4, "board_minutes", "Acme Bank Board Minutes, March 2023", D(2023, 3, 22), D(2023, 3, 14), D(2023, 3, 14), False
    ),
    LibDoc(5, "annual_report", "Acme Bank Annual Report 2023-24", D(2024, 6, 1), D(2023, 4, 1), D(2024, 3, 31), False),
    LibDoc(6, "", "Credit desk note", D(2024, 7, 2), None, None, True),
]


def test_periods_months_fiscal_years_and_quarters() -> None:
    found = [(p.kind, p.label) for p in find_periods("Q3 2024-25 versus FY24, the August 2024 meeting, fiscal 2022-23")]
    assert found == [("quarter", "Q3 2024-25"), ("fy", "2023-24"), ("month", "August 2024"), ("fy", "2022-23")]
    assert find_periods("third quarter of 2024-25")[0].label == "Q3 2024-25"
    assert not find_periods("released on 2024-08-22")  # a date, not a fiscal year
    q3 = quarter(3, 2024)
    assert (q3.start, q3.end) == (D(2024, 10, 1), D(2024, 12, 31))
    assert mentions("CPI for 2024-25 ... Q2 at 4.4 per cent; Q3 at 4.7 per cent", q3)
    assert mentions("in Q3:2024- 25", q3) and not mentions("Q3:2023-24 at 5.6 per cent", q3)


def test_a_question_becomes_filters_over_any_dated_series() -> None:
    u = understand("What did the board decide on dividends at its April 2024 meeting?", LIBRARY)
    assert u.doc_types == ["board_minutes"] and [p.label for p in u.doc_periods] == ["April 2024"]
    assert [d.id for d in matching_documents(u, LIBRARY) or []] == [2]
    report = understand("What was the net interest margin in the 2023-24 annual report?", LIBRARY)
    assert [d.id for d in matching_documents(report, LIBRARY) or []] == [5]
    mine = understand("What does our note say about Q3 2024-25 slippages?", LIBRARY)
    assert mine.mine and [t.label for t in mine.targets] == ["Q3 2024-25"]
    assert [d.id for d in matching_documents(mine, LIBRARY) or []] == [6]
    missing = understand("What did the board decide at its May 2024 meeting?", LIBRARY)
    assert matching_documents(missing, LIBRARY) == []
    info = no_document_info(missing, LIBRARY)
    assert info["family"] == "Acme Bank Board Minutes" and info["asked"] == "May 2024"
    assert info["before"] == {"id": 2, "title": "Acme Bank Board Minutes, April 2024"}
    assert search_query("What did the board decide at its April 2024 meeting?", u, LIBRARY).startswith("decide")


def test_the_search_adds_the_metrics_label_only_where_it_names_the_metric_more_fully() -> None:
    def query(question: str) -> str:
        return search_query(question, understand(question, LIBRARY), LIBRARY)

    # "Headline inflation" is the question's own name for CPI inflation: searching for "CPI
    # inflation" as well ranked the annual report's monthly CPI readings above its year's figure.
    assert query("What was headline inflation in 2023-24 according to the annual report?") == (
        "headline inflation in 2023-24"
    )
    # "GDP growth" is part of the label's "real GDP growth", and "inflation" alone names no kind.
    assert query("What GDP growth did the MPC project for 2024-25 at its June 2024 meeting?").endswith(
        "real GDP growth"
    )
    assert query("What does the annual report say about inflation in 2023-24?").endswith("CPI inflation")


def test_metrics_and_aspects() -> None:
    assert [m.key for m in metrics_asked("What was the reverse repo rate?")] == ["reverse_repo"]
    assert [m.key for m in metrics_asked("What does the annual report say about inflation?")] == ["cpi"]
    assert aspects_asked("By how much did the MPC cut the repo rate and to what level?") >= {"change", "level"}
    assert aspects_asked("Who dissented and what was the vote split?") == {"who", "count"}
    assert "why" in aspects_asked("Why did the committee hold rates?")
    # A level asked in a clause of its own stays asked beside the vote (it had been dropped, and the
    # vote counts alone were marked as the answer); "the repo rate hike" in a vote question is no level.
    both = "What was the repo rate after the August 2019 meeting and how many members voted for 35 basis points?"
    assert aspects_asked(both) == {"level", "count", "who"}
    assert aspects_asked("Who voted against the repo rate hike in December 2022, and what was the split?") == {
        "who",
        "count",
    }


def test_core_inflation_defined_by_what_it_leaves_out_of_cpi_is_not_cpi_inflation() -> None:
    cpi = next(m for m in METRICS if m.key == "cpi")
    # RBI MPC Minutes, December 2023, p. 5 (a member's statement): core, not headline, inflation.
    core = (
        "The core inflation (CPI excluding items of Food, Pan, Tobacco and Intoxicants and Fuel & Light) is "
        "projected to drop from 4.3 per cent in Q3: 2023-24 to 4.1 per cent in Q1: 2024-25 but increase to 4.4 "
        "per cent in Q2: 2024-25."
    )
    assert not names_metric(core, cpi)
    # The same minutes, p. 6, and February 2024, p. 3: headline CPI inflation.
    assert names_metric("the projected headline CPI rate of above 5% up to Q1: 2024-25", cpi)
    assert names_metric("CPI inflation for 2024-25 is projected at 4.5 per cent with Q1 at 5.0 per cent", cpi)


def test_two_meeting_months_beside_the_figures_own_period_name_both_meetings() -> None:
    u = understand("How did the NIM projection for 2024-25 change between March 2024 and April 2024?", LIBRARY)
    assert [p.label for p in u.doc_periods] == ["March 2024", "April 2024"]
    assert [t.label for t in u.targets] == ["2024-25"]
    # Either month's minutes; not the annual report whose year ends in March 2024.
    assert [d.id for d in matching_documents(u, LIBRARY) or []] == [1, 2]
    named = understand("What did the March 2024 and April 2024 board minutes say about deposits?", LIBRARY)
    assert [d.id for d in matching_documents(named, LIBRARY) or []] == [1, 2]
    # Without a period of their own, two months date the figures: March's and April's NIM.
    figures = understand("How did the NIM change between March 2024 and April 2024?", LIBRARY)
    assert [t.label for t in figures.targets] == ["March 2024", "April 2024"] and not figures.doc_periods


def _move(text: str) -> Move:
    move = move_asked(text)
    assert move is not None, text
    return move


def _landing(origin: LibDoc, text: str) -> int | None:
    target = navigate(origin, _move(text), LIBRARY)
    return None if target is None else target.id


def test_series_moves_from_the_cited_document() -> None:
    april = LIBRARY[1]
    assert _landing(april, "and at the following meeting?") == 3  # May is missing: June follows
    assert _landing(april, "the one before that?") == 1
    assert _landing(LIBRARY[0], "and the same meeting last year?") == 4
    assert _landing(LIBRARY[3], "the previous meeting") is None  # the series starts here
    assert _move("two meetings ago").steps == -2
    assert move_asked("what is the repo rate?") is None
    question = "What did the board decide at its April 2024 meeting?"
    u = understand(question, LIBRARY)
    assert rewrite_for(question, LIBRARY[2], u.doc_periods) == question.replace("April 2024", "June 2024")


def test_vote_tables_are_rows_and_the_count_is_rechecked_another_way() -> None:
    text = (
        "14. The next meeting is on October 9. Voting on the Resolution to cut the rate by 25 basis points "
        "Member Vote Dr. A. Rao Yes Dr.B. Sen No Prof. C. Iyer Yes Shri D. Das Yes Statement by Dr. A. Rao"
    )
    (table,) = vote_tables(text)
    assert [r.name for r in table.rows] == ["Dr. A. Rao", "Dr. B. Sen", "Prof. C. Iyer", "Shri D. Das"]
    assert table.split == "3–1" and table.no == ["Dr. B. Sen"]
    assert recount(text) == (3, 1)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How has INFY performed over the last year compared with TCS?", {"months": 12}),
        ("TCS vs WIPRO YTD", {"ytd": True}),
        ("AAPL over the past 3 months", {"months": 3}),
        ("ICICIBANK since 1 January 2024", {"start": "2024-01-01"}),
        ("TCS between March 2023 and June 2024", {"start": "2023-03-01", "end": "2024-06-30"}),
    ],
)
def test_horizons(question: str, expected: dict[str, object]) -> None:
    horizon = horizon_asked(question)
    assert horizon is not None
    args = horizon.as_args()
    assert {k: args[k] for k in expected} == expected


def test_the_relevance_check_catches_evidence_for_another_period() -> None:
    u = understand("What Q3 2024-25 CPI inflation does our note project?", LIBRARY)
    passage = {"chunk_id": 9, "citation": "Credit desk note, p. 1", "url": "/d/6", "document_id": 6, "page": "1"}
    c = Composer("What Q3 2024-25 CPI inflation does our note project?")
    sentence = "Our March note projected CPI inflation for Q3 2023-24 at 5.6 per cent."
    c.parts.append(f"CPI inflation: {c.quote_claim(passage, '5.6', 'per cent', 'CPI inflation')}")
    c.quote(passage, sentence, "CPI inflation", figure_claim=False)
    meta = {9: {"document_id": 6, "doc_type": "", "document_title": "Credit desk note", "uploaded_by_you": True}}
    verdict = assess(u, c, meta)
    assert verdict["ok"] is False
    assert {x["check"]: x["ok"] for x in verdict["checks"]}["period"] is False


def _figure_answer(question: str, sentence: str, figure: str, unit: str) -> Composer:
    passage = {"chunk_id": 4, "citation": "eBay Q1 2023 results, p. 2", "url": "/d/8", "document_id": 8, "page": "2"}
    c = Composer(question)
    c.parts.append(f"The figure: {c.quote_claim(passage, figure, unit, 'the figure')}")
    c.quote(passage, sentence, "the figure", figure_claim=False)
    return c


def test_a_yes_no_question_answered_with_a_figure_alone_is_not_answered() -> None:
    # eBay's Q1 2023 release: a charity sentence's "3%" does not say whether half the GMV was from the U.S.
    question = "Was more than half of eBay's gross merchandise volume in the first quarter of 2023 from the U.S.?"
    sentence = (
        "eBay for Charity contributed more than $38 million globally during the first quarter, up 3% year-over-year."
    )
    meta = {4: {"document_id": 8, "doc_type": "", "document_title": "eBay Q1 2023 results", "citation": "p. 2"}}
    figure_only = assess(understand(question, LIBRARY), _figure_answer(question, sentence, "3", "per cent"), meta)
    assert {x["check"]: (x["ok"], x["detail"]) for x in figure_only["checks"]}["verdict"] == (
        False,
        "says neither yes nor no",
    )
    assert figure_only["ok"] is False
    answered = _figure_answer(question, sentence, "3", "per cent")
    answered.parts.insert(0, "No. U.S. GMV was 48.9% of the total.")
    checks = {
        x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), answered, meta)["checks"]
    }
    assert checks["verdict"] == (True, "answers no")
    # A question that asks no yes or no gets no verdict check.
    what = "What share of eBay's gross merchandise volume was from the U.S.?"
    assert "verdict" not in {
        x["check"]
        for x in assess(understand(what, LIBRARY), _figure_answer(what, sentence, "3", "per cent"), meta)["checks"]
    }


def test_a_day_that_is_the_cited_filings_own_period_end_dates_the_document_not_the_figure() -> None:
    # Adobe's 10-Q for the quarter ended June 2, 2023, p. 21 (read by hand).
    question = (
        "How much remained under Adobe's December 2020 stock repurchase authority after its $1 billion "
        "structured repurchase agreement following June 2, 2023?"
    )
    sentence = (
        "Upon completion of the $1 billion stock repurchase agreement, $3.15 billion remains under our "
        "December 2020 authority."
    )
    passage = {"chunk_id": 5, "citation": "Adobe 10-Q, p. 21", "url": "/d/9", "document_id": 9, "page": "21"}

    def period_check(period_end: str) -> tuple[bool, str]:
        c = Composer(question)
        c.parts.append(f"The figure asked: {c.quote_claim(passage, '3.15', 'billion', 'figure asked')}")
        c.quote(passage, sentence, "figure asked", figure_claim=False)
        meta = {5: {"document_id": 9, "doc_type": "", "citation": "p. 21", "period_end": period_end}}
        checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}
        return checks["period"]

    assert period_check("2023-06-02") == (True, "the evidence names December 2020")
    # From a filing of another quarter, June 2023 is a period the sentence would have to name.
    assert period_check("2023-03-03") == (False, "the evidence is not about December 2020, June 2023")
