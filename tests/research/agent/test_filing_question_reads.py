"""Question understanding over a library of filings titled as analysts title them: the words a
question uses for a period ("the quarter", "12 weeks ended") or a figure ("earnings per share") do
not demand a form of filing, and a guidance question reads the filing that gave the guidance.

The titles, dates and fiscal labels are those of the shipped filings (data/filings/manifest.json,
as read from their covers); the expected documents are written by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from research.agent.question.companies import FiscalAsk, guidance_source
from research.agent.question.library import LibDoc
from research.agent.question.understand import matching_documents, understand

D = dt.date


def _doc(pk: int, form: str, title: str, issuer: str, fiscal: str, start: dt.date, end: dt.date) -> LibDoc:
    return LibDoc(pk, form, title, end + dt.timedelta(days=25), start, end, False, "", issuer, fiscal)


ER = "earnings_release"
LIBRARY = [
    _doc(
        1,
        "10-Q",
        "Apple Inc. Form 10-Q, quarter ended July 1, 2023",
        "Apple Inc.",
        "Q3 FY2023",
        D(2023, 4, 2),
        D(2023, 7, 1),
    ),
    _doc(
        2,
        "10-Q",
        "Adobe Inc. Form 10-Q, quarter ended June 2, 2023",
        "Adobe Inc.",
        "Q2 FY2023",
        D(2023, 3, 4),
        D(2023, 6, 2),
    ),
    LibDoc(3, "8-K", "eBay Inc. Form 8-K, 7 February 2023", D(2023, 2, 7), None, None, False, "", "eBay Inc."),
    _doc(4, ER, "eBay Inc. first quarter 2023 results", "eBay Inc.", "Q1 FY2023", D(2023, 1, 1), D(2023, 3, 31)),
    _doc(5, ER, "eBay Inc. second quarter 2023 results", "eBay Inc.", "Q2 FY2023", D(2023, 4, 1), D(2023, 6, 30)),
    _doc(
        6,
        ER,
        "Costco Wholesale first quarter fiscal 2023 results",
        "Costco Wholesale Corporation",
        "Q1 FY2023",
        D(2022, 8, 29),
        D(2022, 11, 20),
    ),
    _doc(
        7,
        ER,
        "Costco Wholesale third quarter fiscal 2023 results",
        "Costco Wholesale Corporation",
        "Q3 FY2023",
        D(2023, 2, 13),
        D(2023, 5, 7),
    ),
    _doc(
        8,
        ER,
        "Intel first-quarter 2023 financial results",
        "Intel Corporation",
        "Q1 FY2023",
        D(2023, 1, 1),
        D(2023, 4, 1),
    ),
]


def _ids(question: str) -> list[int] | None:
    docs = matching_documents(understand(question, LIBRARY), LIBRARY)
    return None if docs is None else sorted(d.id for d in docs)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "earnings per share" names a figure, not the earnings release the library lacks for Apple.
        ("What was Apple's diluted earnings per share for the third quarter of fiscal 2023?", [1]),
        ("What were Intel's earnings per share in the first quarter of 2023?", [8]),
        # "quarter"/"weeks ended" are how the question names the period, not the 10-Q's title words.
        (
            "What was Costco's net income attributable to Costco for the first quarter of fiscal 2023 "
            "(12 weeks ended November 20, 2022)?",
            [6],
        ),
        ("What were Costco's net sales in the third quarter of fiscal 2023 (12 weeks ended May 7, 2023)?", [7]),
        (
            "What were eBay's purchases of property and equipment in the second quarter of 2023 "
            "(three months ended June 30, 2023)?",
            [5],
        ),
        # The Apple 10-Q is still found by the quarter it ended.
        ("What was Apple's net income for the quarter ended July 1, 2023?", [1]),
    ],
)
def test_period_and_figure_words_demand_no_form(question: str, expected: list[int]) -> None:
    u = understand(question, LIBRARY)
    assert u.doc_types == []
    assert _ids(question) == expected


@pytest.mark.parametrize(
    ("question", "form", "expected"),
    [
        ("What did Costco's earnings release for the third quarter of fiscal 2023 say about gasoline?", ER, [7]),
        ("What did eBay's earnings releases say about buybacks in 2023?", ER, [4, 5]),
        ("What did Apple's 10-Q for the quarter ended July 1, 2023 say about China?", "10-Q", [1]),
        ("How many jobs did eBay say it would cut in its February 2023 8-K?", "8-K", [3]),
    ],
)
def test_a_form_named_still_filters(question: str, form: str, expected: list[int]) -> None:
    assert understand(question, LIBRARY).doc_types == [form]
    assert _ids(question) == expected


@pytest.mark.parametrize(
    ("question", "labels", "expected"),
    [
        ("What revenue guidance did eBay give for the third quarter of 2023?", ["Q2 FY2023"], [5]),
        ("What revenue did Intel forecast for the second quarter of 2023?", ["Q1 FY2023"], [8]),
        ("What is Intel's outlook for Q2 2023 gross margin?", ["Q1 FY2023"], [8]),
        ("What did Costco expect for the fourth quarter of fiscal 2023?", ["Q3 FY2023"], [7]),
        # The guided quarter and the filing that gave it, both named: that filing alone.
        (
            "What revenue guidance did eBay give for the second quarter of 2023 in its first-quarter 2023 results?",
            ["Q1 FY2023"],
            [4],
        ),
        ("What was eBay's Q3 2023 revenue guidance?", ["Q2 FY2023"], [5]),
        # The quarter of the filing that gave the guidance, named: that filing.
        ("What revenue guidance did eBay give in its second quarter 2023 results?", ["Q2 FY2023"], [5]),
        # A year's outlook is given in that year's own filings.
        ("By how much did Intel expect depreciation to fall in 2023?", ["FY2023"], [8]),
    ],
)
def test_a_guidance_question_reads_the_filing_that_gave_it(
    question: str, labels: list[str], expected: list[int]
) -> None:
    assert [f.label for f in understand(question, LIBRARY).fiscal] == labels
    assert _ids(question) == expected


def test_a_past_quarter_without_guidance_words_is_still_refused() -> None:
    u = understand("What were eBay's net revenues in the third quarter of 2023?", LIBRARY)
    assert [f.label for f in u.fiscal] == ["Q3 FY2023"]
    assert matching_documents(u, LIBRARY) == []


def test_the_quarter_before_the_first_is_the_last_of_the_year_before() -> None:
    asked = [FiscalAsk("quarter", year=2024, quarter=1)]
    assert [a.label for a in guidance_source("What guidance did it give for Q1 2024?", asked)] == ["Q4 FY2023"]
    assert guidance_source("What were its sales in Q1 2024?", asked) == asked


def test_a_guidance_answer_quotes_the_figure_guided_not_the_quarters_actual() -> None:
    from research.agent.evidence.select import choose

    # Intel's first-quarter 2023 release, PDF p. 1, as extracted (the bullets under its headline).
    page = (
        "• First-quarter revenue of $11.7 billion, down 36% year over year (YoY). \n"
        "• Forecasting second-quarter 2023 revenue of $11.5 billion to $12.5 billion; expecting second-quarter "
        "EPS of $(0.62); non-GAAP EPS of $(0.04). \n"
    )
    passages = [{"text": page, "document_id": 8, "page_number": 1, "chunk_id": 1}]
    question = "What revenue did Intel forecast for the second quarter of 2023?"
    u = understand(question, LIBRARY)
    assert u.guidance
    ev = choose(question, u, passages)
    assert ev is not None and [c.sentence[:47] for c in ev.chosen] == [
        "Forecasting second-quarter 2023 revenue of $11."
    ]
    assert not understand("What was Intel's revenue in the first quarter of 2023?", LIBRARY).guidance
    assert understand("What revenue guidance did eBay give in its second quarter 2023 results?", LIBRARY).guidance


def test_a_dated_past_figure_of_a_listed_company_is_read_from_its_filings() -> None:
    from research.agent.dialogue.planner import plan_rules

    # Today's snapshot cannot say what the dividend was on a past day: no market fast path, so the
    # deterministic engine searches the documents.
    assert plan_rules("What was Apple's quarterly cash dividend per share as of July 1, 2023?") is None
    assert plan_rules("What was AAPL's dividend in 2019?") is None
    undated = plan_rules("What is AAPL's dividend?")
    assert undated is not None and undated[0] == "fundamentals"
