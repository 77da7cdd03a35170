"""What a document says about a topic: "What did the MPC say about crude oil prices in August 2024?"
is answered by the sentences that name crude oil prices, not by the first figure sentence (it was the
SDF rate, labelled "The figure", verified). Pure: research/agent/question/topics.py, compose/topic.py and the
``topic`` check of verify/relevance.py. The chat over the shipped minutes is in the golden set
(mpc-2024-08-crude-oil-said, mpc-2024-06-monsoon-said, mpc-2023-10-geopolitical-said)."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.compose.topic import compose_topic, compose_topic_absent
from research.agent.question.topics import names_topic, topic_asked, topic_phrase
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess


@pytest.mark.parametrize(
    ("question", "phrase", "words"),
    [
        ("What did the MPC say about crude oil prices in August 2024?", "crude oil prices", ["crude", "oil", "prices"]),
        ("What is the Reserve Bank's view on the monsoon?", "the monsoon", ["monsoon"]),
        ("What does the annual report say about digital payments?", "digital payments", ["digital", "payments"]),
        # "in" ends the topic, "inflation" does not ("core inflation in the June 2024 minutes").
        ("What is the outlook for core inflation in the June 2024 minutes?", "core inflation", ["core", "inflation"]),
        ("What did the MPC note about the global economy at its February 2024 meeting?", "the global economy",
         ["global", "economy"]),
        # The last verb of saying asks it: here "note" is the document.
        ("What does the broker note on IT services say about margins?", "margins", ["margins"]),
        ("What did the MPC say about the outlook for growth?", "the outlook for growth", ["outlook", "growth"]),
        ("What did the MPC decide at its June 2024 meeting?", "", []),
        ("What policy repo rate did the MPC set in April 2018?", "", []),
    ],
)  # fmt: skip
def test_the_topic_a_question_asks_about(question: str, phrase: str, words: list[str]) -> None:
    assert topic_phrase(question) == phrase
    assert topic_asked(question) == words


def test_a_sentence_names_the_topic_when_it_holds_each_of_its_words() -> None:
    topic = ["geopolitical", "tensions"]
    assert names_topic("Headwinds from geopolitical tension pose risks to the outlook.", topic)
    assert not names_topic("Geopolitical risks remain elevated.", topic)
    assert not names_topic("Anything at all.", [])
    # The June 2024 minutes, p. 2: the stock market is written "equity markets".
    assert names_topic(
        "Equity markets have touched new highs in both advanced and emerging market economies.", ["stock", "market"]
    )


def _passage(chunk_id: int, page: int, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "chunk_id": chunk_id,
        "document_id": extra.pop("document_id", 8),
        "document_title": "RBI MPC Minutes, August 2024",
        "doc_type": "mpc_minutes",
        "doc_date": "2024-08-22",
        "text": text,
        "page": str(page),
        "page_number": page,
        "citation": f"RBI MPC Minutes, August 2024, p. {page}",
        "url": f"/research/documents/8/?page={page}",
        **extra,
    }


# The August 2024 minutes (reserve_bank_of_india_06-08-2024.pdf): p. 2 and p. 3 of the resolution, a
# member's statement on p. 7 (read by hand).
SDF = (
    "Consequently, the standing deposit facility (SDF) rate remains unchanged at 6.25 per cent and the "
    "marginal standing facility (MSF) rate and the Bank Rate at 6.75 per cent."
)
CRUDE = "Crude oil prices continue to be volatile on demand concerns and geopolitical tensions."
MONSOON_P2 = (
    "After a weak and delayed start, the cumulative southwest monsoon rainfall has picked up with improving "
    "spatial spread."
)
MONSOON_P3 = (
    "The steady progress in monsoon, pick-up in kharif sowing, adequate buffer stocks of foodgrains and easing "
    "global food prices are positives for containing food price pressures."
)
MONSOON_P7 = "Vegetable inflation is transient, less than last year and is already correcting with the good monsoon."


def test_the_answer_quotes_the_sentences_naming_the_topic_in_the_documents_order() -> None:
    question = "What did the MPC say about the monsoon in August 2024?"
    c = Composer(question)
    passages = [
        _passage(3, 3, f"{MONSOON_P3} {CRUDE}"),  # ranked first, later in the document
        _passage(1, 2, f"{SDF} {MONSOON_P2}"),
        _passage(9, 7, MONSOON_P7, in_statement=True),
        _passage(50, 2, "The monsoon in another document entirely was weak.", document_id=99),
    ]
    assert compose_topic(c, understand(question, []), passages)
    assert c.parts == [
        "What RBI MPC Minutes, August 2024 says about the monsoon:",
        f"“{MONSOON_P2}” [Source: RBI MPC Minutes, August 2024, p. 2]",
        f"“{MONSOON_P3}” [Source: RBI MPC Minutes, August 2024, p. 3]",
    ]  # the member's sentence (p. 7) is not the committee's while the committee's own name it
    assert c.assessment == {"topic": "the monsoon"} and c.claims == []


def test_with_no_period_asked_the_latest_document_naming_the_topic_answers() -> None:
    older = {"document_id": 7, "document_title": "RBI MPC Minutes, June 2023", "doc_date": "2023-06-08"}
    said_2023 = "The progress of the south west monsoon is critical in this regard."  # June 2023, p. 4
    passages = [_passage(70, 4, said_2023, **older), _passage(1, 2, f"{SDF} {MONSOON_P2}")]  # 2023 ranked first
    question = "What did the MPC say about the monsoon?"
    c = Composer(question)
    assert compose_topic(c, understand(question, []), passages)
    assert c.parts == [
        "What RBI MPC Minutes, August 2024 says about the monsoon:",
        f"“{MONSOON_P2}” [Source: RBI MPC Minutes, August 2024, p. 2]",
    ]
    # A period asked keeps the best-ranked document of that period.
    dated = "What did the MPC say about the monsoon in June 2023?"
    c = Composer(dated)
    assert compose_topic(c, understand(dated, []), passages)
    assert c.parts[0] == "What RBI MPC Minutes, June 2023 says about the monsoon:"


def test_only_the_members_statements_naming_it_are_said_to_be_theirs() -> None:
    question = "What did the MPC say about the monsoon in August 2024?"
    c = Composer(question)
    assert compose_topic(
        c, understand(question, []), [_passage(1, 2, SDF), _passage(9, 7, MONSOON_P7, in_statement=True)]
    )
    assert c.parts[0] == "In the members’ own statements in RBI MPC Minutes, August 2024, on the monsoon:"
    assert c.parts[1] == f"“{MONSOON_P7}” [Source: RBI MPC Minutes, August 2024, p. 7]"


def test_no_topic_a_metric_or_no_sentence_naming_it_leaves_the_question_to_the_other_answers() -> None:
    for question in (
        "What policy repo rate did the MPC decide in August 2024?",  # no topic
        "What did the MPC say about CPI inflation in August 2024?",  # a metric: its figure, in its unit
        "What did the MPC say about cryptocurrency in August 2024?",  # no sentence names it
    ):
        c = Composer(question)
        assert not compose_topic(c, understand(question, []), [_passage(1, 2, f"{SDF} {CRUDE}")])
        assert c.parts == []


def test_a_topic_no_passage_names_is_said_to_be_unmentioned_in_the_documents_searched() -> None:
    question = "What did the MPC say about cryptocurrency in August 2024?"
    c = Composer(question)
    assert compose_topic_absent(c, understand(question, []), [_passage(1, 2, f"{SDF} {CRUDE}")])
    assert c.parts == [
        "I found no passage in RBI MPC Minutes, August 2024 that mentions cryptocurrency, so there is nothing to "
        "quote on it."
    ]
    assert c.outcome == "no_document" and c.claims == []
    other = _passage(5, 4, "Crude again.", document_id=99, document_title="RBI MPC Minutes, June 2024")
    c = Composer(question)
    assert compose_topic_absent(c, understand(question, []), [_passage(1, 2, SDF), other])
    assert "no passage in the documents the search returned" in c.parts[0]
    for question in (
        "What did the MPC say about crude oil prices in August 2024?",  # a sentence names it: quoted instead
        "What did the MPC say about CPI inflation in August 2024?",  # a metric
        "What policy repo rate did the MPC decide in August 2024?",  # no topic
    ):
        assert not compose_topic_absent(
            Composer(question), understand(question, []), [_passage(1, 2, f"{SDF} {CRUDE}")]
        )
    assert not compose_topic_absent(Composer(question), understand(question, []), [])  # nothing searched


def test_an_answer_quoting_no_sentence_on_the_topic_does_not_answer_it() -> None:
    question = "What did the MPC say about crude oil prices in August 2024?"
    passages = {1: _passage(1, 2, SDF), 3: _passage(3, 3, CRUDE)}
    u = understand(question, [])
    before = Composer(question)  # the answer it got: the first figure sentence
    before.quote(passages[1], SDF, "figure", figure_claim=False)
    checks = {x["check"]: x for x in assess(u, before, passages)["checks"]}
    assert checks["topic"] == {"check": "topic", "ok": False, "detail": "no sentence quoted names crude oil prices"}
    now = Composer(question)
    assert compose_topic(now, u, list(passages.values()))
    result = assess(u, now, passages)
    assert result["ok"] is True
    assert {"check": "topic", "ok": True, "detail": "quotes on crude oil prices"} in result["checks"]


def test_a_heading_a_list_item_or_a_sentence_cut_by_the_page_is_quoted_only_after_whole_sentences() -> None:
    # The annual report's text as the parser reads it (RBI Annual Report 2023-24, pp. 7, 98 and 163).
    laid_out = [
        "Expanding and Deepening of Digital Payments Ecosystem IV.",
        "This feature not only allows retail digital payments where connectivity is weak, but also ensures "
        "faster transactions, with minimal rejections; and iii.",
        "For expanding and deepening the digital payments ecosystem in the country, all State Level Bankers’ "
        "Committees were advised to identify district(s) in their respective states and allot the same to a "
        "bank which would",
    ]
    whole = (
        "In 2023-24, total digital payments recorded growth of 44.3 per cent and 16.4 per cent in volume and value "
        "terms, respectively."
    )
    question = "What does the annual report say about digital payments?"
    c = Composer(question)
    passages = [_passage(i + 1, 98, text) for i, text in enumerate(laid_out)] + [_passage(9, 7, whole)]
    assert compose_topic(c, understand(question, []), passages)
    assert c.parts[1].startswith(f"“{whole}”") and len(c.parts) == 4


def test_a_search_whose_passages_never_name_the_topic_is_sure_of_that() -> None:
    """Low confidence had sent "What did the MPC say about cryptocurrency?" to a web search and then to a
    reviewer with an empty draft; the library was searched, and no passage naming it is the answer."""
    from research.agent.tool_nodes import _confidence

    question = "What did the MPC say about cryptocurrency in August 2024?"
    u = understand(question, [])
    passages = [{**_passage(1, 2, f"{SDF} {CRUDE}"), "retrievers": {"vector": {"score": 0.1}}}]
    assert _confidence(question, u, passages, question) == 0.9
    crude = "What did the MPC say about crude oil prices in August 2024?"
    assert _confidence(crude, understand(crude, []), passages, crude) < 0.9  # named: judged as before
