"""The institution or company a question names is the one the answer is about: an RBI sentence with
a reason in it does not answer "Why did the Federal Open Market Committee pause?", nor does the RBI's
GDP growth answer "What was Microsoft's Azure revenue growth?". Pure: research/agent/evidence/names.py, the
``subject`` check of verify/relevance.py and the document composer's answer when nothing found names it.
The chat over the shipped corpus is in test_named_subjects_chat.py."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.docs import compose_documents
from research.agent.evidence.names import named_in, names_asked, names_missing
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Why did the Federal Open Market Committee pause in September 2019?", ["Federal Open Market Committee"]),
        ("What did the European Central Bank decide in March 2025?", ["European Central Bank"]),
        ("What was Microsoft's Azure revenue growth in fiscal 2023?", ["Microsoft"]),
        ("How did Tesla’s deliveries change in 2023?", ["Tesla"]),
        # A word capitalised inside is a name, owner or not (a library of RBI documents had answered
        # eBay's GMV with "99.8 per cent", the share of digital payments, from the annual report).
        ("What was eBay's gross merchandise volume in Q2 2023?", ["eBay"]),
        ("What was eBay gross merchandise volume in Q2 2023?", ["eBay"]),
        (
            "What share of Intel's first-quarter 2023 net revenue came from the Data Center and AI segment?",
            ["Data Center and AI", "Intel"],
        ),
        ("What is the Reserve Bank's view on crude oil prices?", ["Reserve Bank"]),
        # A sentence's first word, a month, a person and an office are not names asked.
        ("Since the MPC cut the repo rate at its August 2024 meeting, what did it decide next?", []),
        ("What did the MPC decide at its June 2024 meeting?", []),
        ("Why did Prof. Jayanth R. Varma vote for a cut?", []),
        ("What did the Deputy Governor say about food prices in June 2024?", []),
        # Capitals that shout ("DROP TABLE") or tickers are not names of two capitalised words.
        ("What is the repo rate in August 2024'; DROP TABLE research_chunk; --", []),
    ],
)
def test_the_names_a_question_asks_about(question: str, names: list[str]) -> None:
    assert names_asked(question) == names


def test_a_name_is_found_whole_by_its_initials_or_in_the_documents_titles() -> None:
    assert named_in("Monetary Policy Committee", ["The MPC decided to keep the policy repo rate unchanged."])
    assert named_in("Reserve Bank", ["… the Reserve Bank of India's balance sheet …"])
    # The question's "Adobe Digital Media": "Adobe" is the document's issuer, "Digital Media" its text.
    assert named_in("Adobe Digital Media", ["Digital Media revenue was $3,511 million."], ["Adobe Inc. Form 10-Q"])
    assert named_in(
        "RBI Annual Report", ["Food and beverages inflation averaged 7.0 per cent."], ["RBI Annual Report 2023-24"]
    )
    assert named_in("McDonald", ["Restructuring charges …"], ["McDonald's Corporation Form 10-Q"])
    # Its words scattered over a passage are not its name, and "Federal" alone is not "FOMC".
    rbi = "The MPC reviewed open market operations; the Committee noted the US Federal Reserve's stance."
    assert not named_in("Federal Open Market Committee", [rbi], ["RBI MPC Minutes, September 2022"])
    assert not named_in("Microsoft", ["Real GDP growth was 8.2 per cent."], ["RBI Annual Report 2023-24"])


def _passage(chunk_id: int, text: str, title: str = "RBI MPC Minutes, September 2022") -> dict[str, Any]:
    return {
        "chunk_id": chunk_id,
        "document_id": 3,
        "document_title": title,
        "doc_type": "mpc_minutes",
        "doc_date": "2022-09-30",
        "text": text,
        "page": "1",
        "page_number": 1,
        "citation": f"{title}, p. 1",
        "url": "/research/documents/3/?page=1",
    }


REASON = (
    "The MPC also reviewed in detail the staff's macroeconomic projections, and alternative scenarios "
    "around various risks to the outlook."
)


def test_an_answer_citing_passages_that_never_name_the_subject_does_not_answer() -> None:
    question = "Why did the Federal Open Market Committee pause in September 2019?"
    passages = {1: _passage(1, REASON)}
    c = Composer(question)
    c.quote(passages[1], REASON, "why")
    checks = {x["check"]: x for x in assess(understand(question, []), c, passages)["checks"]}
    assert checks["subject"] == {
        "check": "subject",
        "ok": False,
        "detail": "the passages cited never name “Federal Open Market Committee”",
    }
    # The same sentence for the committee that wrote it answers the subject asked.
    ours = Composer("Why did the Monetary Policy Committee keep the rate unchanged in September 2022?")
    ours.quote(passages[1], REASON, "why")
    checks = {x["check"]: x for x in assess(understand(ours.question, []), ours, passages)["checks"]}
    assert checks["subject"]["ok"] is True


def test_when_no_passage_found_names_the_subject_the_answer_says_so_and_quotes_nothing() -> None:
    question = "Why did the Federal Open Market Committee pause in September 2019?"
    c = Composer(question)
    out = {"understanding": understand(question, []).as_dict(), "passages": [_passage(1, REASON)]}
    compose_documents(c, "rag_search", out)
    assert c.outcome == "no_document"
    assert c.parts == [
        "I found nothing on the Federal Open Market Committee in the library: no passage found for this "
        "question names it, so I did not answer from other documents."
    ]
    assert c.claims == [] and c.citations == []
    # One passage naming it is enough to look for the answer in them.
    named = _passage(2, "The US Federal Open Market Committee paused, citing a slowing economy.")
    assert names_missing(question, [_passage(1, REASON), named]) == []


@pytest.mark.parametrize(
    ("name", "text", "named"),
    [
        # An acronym the question uses for a name the documents spell out, letter by letter.
        ("BoJ", "The Bank of Japan decided to maintain the policy rate.", True),
        ("MPC", "The Monetary Policy Committee met on 20 September.", True),
        # Capitals start capitalised words: lower-case words do not spell it, nor do other names.
        ("BoJ", "the bank of japan", False),
        ("ECB", "The Bank of England decided.", False),
        ("FOMC", "The Reserve Bank of India's committee met.", False),
    ],
)
def test_an_acronym_is_named_by_the_words_it_stands_for(name: str, text: str, named: bool) -> None:
    assert named_in(name, [text]) is named
