"""Question understanding, series navigation, tables, horizons and the relevance check, as pure
functions over a library that is not RBI's: generic for any dated document series."""

from __future__ import annotations

import datetime as dt

import pytest

from research.agent.composer import Composer
from research.agent.horizons import horizon_asked
from research.agent.lexicon import aspects_asked, metrics_asked
from research.agent.periods import find_periods, mentions, quarter
from research.agent.relevance import assess
from research.agent.series import Move, move_asked, navigate, no_document_info, rewrite_for
from research.agent.tables import recount, vote_tables
from research.agent.understand import LibDoc, matching_documents, search_query, understand

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


def test_metrics_and_aspects() -> None:
    assert [m.key for m in metrics_asked("What was the reverse repo rate?")] == ["reverse_repo"]
    assert [m.key for m in metrics_asked("What does the annual report say about inflation?")] == ["cpi"]
    assert aspects_asked("By how much did the MPC cut the repo rate and to what level?") >= {"change", "level"}
    assert aspects_asked("Who dissented and what was the vote split?") == {"who", "count"}
    assert "why" in aspects_asked("Why did the committee hold rates?")


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


def test_one_months_reading_does_not_answer_a_question_about_the_year() -> None:
    # The RBI Annual Report 2023-24, p. 83 (read by hand): the August reading, not the year's 5.4 per cent.
    passage = {"chunk_id": 7, "citation": "Annual Report 2023-24, p. 83", "url": "/d/5", "document_id": 5, "page": "83"}
    meta = {
        7: {
            "document_id": 5,
            "doc_type": "annual_report",
            "citation": "Annual Report 2023-24, p. 83",
            "doc_date": "2024-06-01",
            "period_start": "2023-04-01",
            "period_end": "2024-03-31",
        }
    }

    def checks(question: str, sentence: str, figure: str) -> dict[str, tuple[bool, str]]:
        c = Composer(question)
        c.parts.append(f"CPI inflation: {c.quote_claim(passage, figure, 'per cent', 'CPI inflation')}")
        c.quote(passage, sentence, "CPI inflation", figure_claim=False)
        return {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}

    asked = "What was CPI inflation in 2023-24 according to the annual report?"
    august = "CPI headline inflation moderated to 6.8 per cent in August."
    assert checks(asked, august, "6.8")["period"] == (False, "the figure is for August, not for 2023-24")
    year = "Headline inflation moderated by 1.3 percentage points to 5.4 per cent in 2023-24."
    assert "period" not in checks(asked, year, "5.4")
    march = "CPI inflation eased to 4.9 per cent in March 2024."
    assert checks(asked, march, "4.9")["period"] == (False, "the figure is for March, not for 2023-24")
    # A day after the month makes it a balance date, not a month's reading.
    assert "period" not in checks(asked, "The ratio stood at 5.4 per cent in March 31, 2024 terms.", "5.4")
    # Asked about the month, the month's reading is what was asked.
    in_month = "What was CPI inflation in August according to the 2023-24 annual report?"
    assert checks(in_month, august, "6.8") == {
        "document": (True, "cites 2023-24, Annual report"),
        "aspects": (True, "answers level"),
        "metric": (True, "the evidence names the CPI inflation"),
    }


def test_a_projection_does_not_answer_what_happened() -> None:
    # The RBI Annual Report 2023-24, p. 82 (read by hand): the April 2023 projection for the year.
    passage = {"chunk_id": 8, "citation": "Annual Report 2023-24, p. 82", "url": "/d/5", "document_id": 5, "page": "82"}
    meta = {8: {"document_id": 5, "doc_type": "annual_report", "citation": "Annual Report 2023-24, p. 82"}}
    sentence = "CPI inflation was projected at 5.2 per cent for 2023-24, with Q1 at 5.1 per cent."

    def outcome(question: str, figure: str) -> tuple[bool, str] | None:
        c = Composer(question)
        c.parts.append(f"CPI inflation: {c.quote_claim(passage, figure, 'per cent', 'CPI inflation')}")
        c.quote(passage, sentence, "CPI inflation", figure_claim=False)
        checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}
        return checks.get("outcome")

    asked = "What was CPI inflation in 2023-24 according to the annual report?"
    assert outcome(asked, "5.2") == (False, "the figure is a projection, not the outcome asked")
    assert outcome(asked, "5.1") == (False, "the figure is a projection, not the outcome asked")  # Q1's, same clause
    # Asked for the projection, the projection is the answer.
    assert outcome("What CPI inflation was projected for 2023-24 in the annual report?", "5.2") is None
    assert outcome("What did the annual report project CPI inflation at for 2023-24?", "5.2") is None


def test_a_figure_dated_to_another_day_does_not_answer() -> None:
    # The RBI Annual Report 2023-24, p. 6 (read by hand): the reserves as on May 17, 2024.
    passage = {"chunk_id": 6, "citation": "Annual Report 2023-24, p. 6", "url": "/d/5", "document_id": 5, "page": "6"}
    meta = {6: {"document_id": 5, "doc_type": "annual_report", "citation": "Annual Report 2023-24, p. 6"}}
    may = "Foreign exchange reserves rose to an all-time high of US$ 648.7 billion as on May 17, 2024."
    march = "Foreign exchange reserves stood at US$ 645.6 billion as on March 31, 2024."

    def period(question: str, sentence: str, figure: str, understood_from: str = "") -> tuple[bool, str] | None:
        c = Composer(question)
        c.parts.append(f"Reserves: {c.quote_claim(passage, figure, 'billion', 'foreign exchange reserves')}")
        c.quote(passage, sentence, "foreign exchange reserves", figure_claim=False)
        u = understand(understood_from or question, LIBRARY)
        return {x["check"]: (x["ok"], x["detail"]) for x in assess(u, c, meta)["checks"]}.get("period")

    at_end = "How much were foreign exchange reserves at end-March 2024 according to the annual report?"
    assert period(at_end, may, "648.7") == (False, "the figure is as on 17 May 2024, not March 2024")
    assert period(at_end, march, "645.6") is None
    # The understanding may come from the search query, whose positions are not the question's.
    query = "foreign exchange reserves at end-March 2024 annual report"
    assert period(at_end, may, "648.7", understood_from=query) == (
        False,
        "the figure is as on 17 May 2024, not March 2024",
    )
    in_year = "How much were foreign exchange reserves in 2023-24 according to the annual report?"
    assert period(in_year, may, "648.7") == (False, "the figure is as on 17 May 2024, not 2023-24")
    assert period(in_year, march, "645.6") is None
    # A month that names the minutes dates the document: a figure from the days before it stands.
    minutes = "What did the board say about reserves in its June 2024 minutes?"
    assert period(minutes, may, "648.7") is None


def test_a_threshold_from_a_month_is_not_the_years_figure() -> None:
    passage = {"chunk_id": 3, "citation": "Annual Report 2023-24, p. 14", "url": "/d/5", "document_id": 5, "page": "14"}
    meta = {3: {"document_id": 5, "doc_type": "annual_report", "citation": "Annual Report 2023-24, p. 14"}}
    question = "What was core inflation in 2023-24 according to the annual report?"
    c = Composer(question)
    c.parts.append(f"Core inflation: {c.quote_claim(passage, '4', 'per cent', 'core inflation')}")
    c.quote(passage, "Core inflation has moved below 4 per cent from December 2023.", "core", figure_claim=False)
    checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}
    assert checks["period"] == (False, "the figure is for December, not for 2023-24")


def test_a_move_in_basis_points_is_not_the_level_asked() -> None:
    # The RBI MPC Minutes, June 2024, p. 6 (read by hand): households' expected inflation, in basis points.
    passage = {
        "chunk_id": 2,
        "citation": "Board Minutes, June 2024, p. 6",
        "url": "/d/3",
        "document_id": 3,
        "page": "6",
    }
    meta = {2: {"document_id": 3, "doc_type": "board_minutes", "citation": "Board Minutes, June 2024, p. 6"}}
    question = "What was CPI inflation in May 2024 according to the June 2024 minutes?"

    def aspects(sentence: str, figure: str, unit: str) -> tuple[bool, str]:
        c = Composer(question)
        c.parts.append(f"CPI inflation (May 2024): {c.quote_claim(passage, figure, unit, 'CPI inflation')}")
        c.quote(passage, sentence, "CPI inflation", figure_claim=False)
        checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}
        return checks["aspects"]

    moved = "The survey in May 2024 points to a moderate increase in expected inflation by 20 and 10 basis points."
    assert aspects(moved, "20", "basis points") == (False, "not answered: level")
    level = "CPI inflation eased to 4.8 per cent in May 2024."
    assert aspects(level, "4.8", "per cent") == (True, "answers level")


def test_another_months_reading_does_not_answer_the_month_asked() -> None:
    # The RBI MPC Minutes, June 2024, p. 2 (read by hand).
    sentence = (
        "Headline inflation has seen sequential moderation since February 2024, albeit in a narrow range "
        "from 5.1 per cent in February to 4.8 per cent in April 2024."
    )
    passage = {
        "chunk_id": 1,
        "citation": "Board Minutes, June 2024, p. 2",
        "url": "/d/3",
        "document_id": 3,
        "page": "2",
    }
    meta = {1: {"document_id": 3, "doc_type": "board_minutes", "citation": "Board Minutes, June 2024, p. 2"}}

    def period(question: str, figure: str) -> list[tuple[bool, str]]:
        c = Composer(question)
        c.parts.append(f"CPI inflation: {c.quote_claim(passage, figure, 'per cent', 'CPI inflation')}")
        c.quote(passage, sentence, "CPI inflation", figure_claim=False)
        checks = assess(understand(question, LIBRARY), c, meta)["checks"]
        return [(x["ok"], x["detail"]) for x in checks if x["check"] == "period"]

    april = "What was headline inflation in April 2024 according to the June 2024 minutes?"
    assert period(april, "5.1") == [
        (False, "the figure is for February, not for April 2024"),
        (True, "the evidence names April 2024"),  # the sentence does name April: not enough
    ]
    assert period(april, "4.8") == [(True, "the evidence names April 2024")]
    february = "What was headline inflation in February 2024 according to the June 2024 minutes?"
    assert period(february, "5.1") == [(True, "the evidence names February 2024")]


def test_the_figure_read_is_the_one_the_sentence_dates_by_the_month_asked() -> None:
    from research.agent.compose_docs import _anchor_figure

    # (September 2024: no document of the library is dated then, so the month is the figure's.)
    sentence = "Inflation eased in a narrow range from 5.1 per cent in July to 4.8 per cent in September 2024."
    asked = understand("What was CPI inflation in September 2024?", LIBRARY)
    assert [t.label for t in asked.targets] == ["September 2024"]
    assert _anchor_figure(sentence, asked) == ("4.8", "per cent")
    # With no month asked, the first figure after the metric's name, as before.
    assert _anchor_figure(sentence, understand("What was CPI inflation?", LIBRARY)) == ("5.1", "per cent")


def test_the_quarter_asked_picks_the_figure_the_sentence_dates_by_it() -> None:
    from research.agent.compose_docs import _anchor_figure

    # The RBI MPC Minutes, August 2024, p. 4 (read by hand).
    sentence = (
        "The YOY real GDP growth in 2023-24 exceeded 8 per cent in the first three quarters, "
        "dropping to 7.8 per cent in Q4."
    )
    asked = understand("What was real GDP growth in Q4 2023-24?", LIBRARY)
    assert _anchor_figure(sentence, asked) == ("7.8", "per cent")


def test_how_many_basis_points_asks_the_size_of_a_move_not_a_count() -> None:
    assert aspects_asked("By how many basis points did the board raise the policy rate in February 2023?") == {"change"}
    assert aspects_asked("How many members voted to raise the policy rate?") >= {"count"}
