"""Questions that name a company are answered from that company's filings, for the fiscal period
they name; questions naming no company are understood exactly as before.

The library below holds filings of four companies (details as read from their covers, see
tests/research/test_filing_metadata.py) beside RBI minutes and an annual report."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from research.agent.question.companies import aliases, companies_named, fiscal_asked
from research.agent.question.library import LibDoc
from research.agent.question.understand import matching_documents, understand

D = dt.date
RBI = "Reserve Bank of India"
RBI_DOCS = [
    LibDoc(
        11,
        "mpc_minutes",
        "Minutes of the MPC, August 2024",
        D(2024, 8, 22),
        D(2024, 8, 6),
        D(2024, 8, 8),
        False,
        "",
        RBI,
    ),
    LibDoc(
        12, "mpc_minutes", "Minutes of the MPC, June 2024", D(2024, 6, 21), D(2024, 6, 5), D(2024, 6, 7), False, "", RBI
    ),
    LibDoc(
        13, "annual_report", "RBI Annual Report 2023-24", D(2024, 5, 30), D(2023, 4, 1), D(2024, 3, 31), False, "", RBI
    ),
    LibDoc(14, "", "Credit desk note", D(2024, 7, 2), None, None, True),
]


def _filing(
    pk: int, form: str, title: str, filed: dt.date, period: tuple[dt.date, dt.date] | None, issuer: str, fiscal: str
) -> LibDoc:
    start, end = period or (None, None)
    return LibDoc(pk, form, title, filed, start, end, False, "", issuer, fiscal)


FILINGS = [
    _filing(1, "8-K", "EBAY 2023Q1 8K", D(2023, 2, 7), None, "eBay Inc.", ""),
    _filing(2, "10-Q", "APPLE 2023Q3 10Q", D(2023, 8, 3), (D(2023, 4, 2), D(2023, 7, 1)), "Apple Inc.", "Q3 FY2023"),
    _filing(
        3,
        "10-K",
        "ACTIVISIONBLIZZARD 2018 10K",
        D(2019, 2, 28),
        (D(2018, 1, 1), D(2018, 12, 31)),
        "Activision Blizzard, Inc.",
        "FY2018",
    ),
    _filing(
        4,
        "earnings_release",
        "EBAY 2023Q1 EARNINGS",
        D(2023, 4, 26),
        (D(2023, 1, 1), D(2023, 3, 31)),
        "eBay Inc.",
        "Q1 FY2023",
    ),
    _filing(
        5,
        "earnings_release",
        "COSTCO 2023Q3 EARNINGS",
        D(2023, 5, 25),
        (D(2023, 2, 13), D(2023, 5, 7)),
        "Costco Wholesale Corporation",
        "Q3 FY2023",
    ),
    _filing(6, "10-Q", "EBAY 2023Q2 10Q", D(2023, 7, 27), (D(2023, 4, 1), D(2023, 6, 30)), "eBay Inc.", ""),
]
LIBRARY = RBI_DOCS + FILINGS


@pytest.mark.parametrize(
    ("question", "issuers", "documents"),
    [
        ("What were Apple's net sales in the quarter ended July 1, 2023?", ["Apple Inc."], [2]),
        ("eBay's Q1 2023 revenue", ["eBay Inc."], [4]),
        ("What were eBay's diluted earnings per share in Q1 2023?", ["eBay Inc."], [4]),  # not "earnings releases"
        ("What did eBay report for the first quarter of 2023?", ["eBay Inc."], [4]),
        ("Costco's net sales in the third quarter of fiscal 2023", ["Costco Wholesale Corporation"], [5]),
        ("Costco Q3 FY23 comparable sales", ["Costco Wholesale Corporation"], [5]),
        ("What was Activision Blizzard's FY2018 revenue?", ["Activision Blizzard, Inc."], [3]),
        ("Activision's capital expenditure in 2018", ["Activision Blizzard, Inc."], [3]),
        ("What does eBay's 8-K say about layoffs?", ["eBay Inc."], [1]),
        ("How did eBay's revenue change?", ["eBay Inc."], [1, 4, 6]),  # every eBay filing, no other company's
        # No label on this 10-Q: its calendar quarter by its period's end (30 June 2023).
        ("eBay's Q2 2023 gross merchandise volume", ["eBay Inc."], [6]),
        (
            "What were Apple's and Costco's net sales in Q3 FY2023?",
            ["Apple Inc.", "Costco Wholesale Corporation"],
            [2, 5],
        ),
        ("What was Apple's Q3 2024 revenue?", ["Apple Inc."], []),  # the library has no such filing
    ],
)
def test_a_question_naming_a_company_points_at_its_filings_for_the_period(
    question: str, issuers: list[str], documents: list[int]
) -> None:
    u = understand(question, LIBRARY)
    assert u.issuers == issuers
    assert [d.id for d in matching_documents(u, LIBRARY) or []] == documents
    assert u.doc_periods == [] and u.targets == []  # the filing carries the period; no text must restate it


def test_the_period_named_becomes_the_understanding_s_fiscal_filter() -> None:
    u = understand("What were Apple's net sales in the quarter ended July 1, 2023?", LIBRARY)
    assert u.as_dict()["issuers"] == ["Apple Inc."]
    assert u.as_dict()["fiscal"] == [
        {"kind": "ended", "year": 0, "quarter": 0, "day": "2023-07-01", "label": "the period ended 1 July 2023"}
    ]
    assert [(a.kind, a.quarter, a.year) for a in fiscal_asked("Q3 FY2023 and the fourth quarter of 2022 and FY19")] == [
        ("quarter", 3, 2023),
        ("quarter", 4, 2022),
        ("year", 0, 2019),
    ]


def test_company_names_are_matched_by_name_possessive_or_distinctive_first_word() -> None:
    assert aliases("Costco Wholesale Corporation") == {"costco wholesale corporation", "costco wholesale", "costco"}
    assert aliases("The AES Corporation") == {"the aes corporation", "aes"}
    assert aliases("McDonald's Corporation") == {"mcdonalds corporation", "mcdonalds"}
    assert aliases("General Motors Company") == {"general motors company", "general motors"}  # not "general"
    assert aliases(RBI) == {"reserve bank of india"}  # not a legal name: matched only whole
    assert companies_named("What are the reserve requirements?", LIBRARY) == []
    assert companies_named("What did the Reserve Bank of India decide?", LIBRARY) == [RBI]
    assert companies_named("Compare APPLE and EBAY", LIBRARY) == ["Apple Inc.", "eBay Inc."]
    assert companies_named("What did the apple pie index do?", LIBRARY) == ["Apple Inc."]  # a known limit: words
    assert companies_named("pineapple sales", LIBRARY) == []


QUESTIONS_WITHOUT_A_COMPANY = [
    "What policy repo rate did the MPC decide at its August 2024 meeting?",
    "What did the MPC say about food inflation in June 2024?",
    "What was the net interest margin in the 2023-24 annual report?",
    "What does our note say about Q3 2024-25 slippages?",
    "What is the repo rate?",
    "What were net sales in the quarter ended July 1, 2023?",
]


@pytest.mark.parametrize("question", QUESTIONS_WITHOUT_A_COMPANY)
def test_a_question_naming_no_company_is_understood_as_before(question: str) -> None:
    """The same library as the code saw it before filings had a company and a fiscal period."""
    before_library = [replace(d, issuer="", fiscal_period="") for d in LIBRARY]
    before, now = understand(question, before_library), understand(question, LIBRARY)
    assert now.issuers == [] and now.fiscal == []
    assert now.as_dict() == before.as_dict()
    docs_before, docs_now = matching_documents(before, before_library), matching_documents(now, LIBRARY)
    assert (docs_now is None, [d.id for d in docs_now or []]) == (
        docs_before is None,
        [d.id for d in docs_before or []],
    )


def test_a_missing_period_names_the_company_s_nearest_filings() -> None:
    from research.agent.dialogue.series import no_document_info

    apple = understand("What was Apple's Q3 2024 revenue?", LIBRARY)
    assert no_document_info(apple, LIBRARY) == {
        "asked": "Apple Inc., Q3 FY2024",
        "mine": False,
        "family": "",
        "before": {"id": 2, "title": "APPLE 2023Q3 10Q"},
        "after": None,
    }
    ebay = understand("eBay's revenue in Q4 2022", LIBRARY)
    info = no_document_info(ebay, LIBRARY)
    assert (info["before"], info["after"]) == (None, {"id": 1, "title": "EBAY 2023Q1 8K"})  # its 8-K of 7 Feb 2023
    later = no_document_info(understand("eBay's revenue in Q4 2023", LIBRARY), LIBRARY)
    assert (later["before"], later["after"]) == ({"id": 6, "title": "EBAY 2023Q2 10Q"}, None)
