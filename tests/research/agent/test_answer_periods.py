"""Does the answer answer the question, for the periods, units and kinds of figure an analyst asks
about: one month's reading is not the year's, a projection is not the outcome, a figure dated to
another day or month, a move in basis points or one end of a range is not the value asked. Every
sentence is from the shipped RBI documents, read by hand (page named in each test)."""

from __future__ import annotations

from typing import Any

from research.agent.compose.composer import Composer
from research.agent.question.lexicon import aspects_asked
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess
from tests.research.agent.test_understanding import LIBRARY


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
    from research.agent.evidence.anchors import anchor_figure

    # (September 2024: no document of the library is dated then, so the month is the figure's.)
    sentence = "Inflation eased in a narrow range from 5.1 per cent in July to 4.8 per cent in September 2024."
    asked = understand("What was CPI inflation in September 2024?", LIBRARY)
    assert [t.label for t in asked.targets] == ["September 2024"]
    assert anchor_figure(sentence, asked) == ("4.8", "per cent")
    # With no month asked, the level it moved to, not the one it moved from ("from 5.1 per cent").
    assert anchor_figure(sentence, understand("What was CPI inflation?", LIBRARY)) == ("4.8", "per cent")


def test_the_quarter_asked_picks_the_figure_the_sentence_dates_by_it() -> None:
    from research.agent.evidence.anchors import anchor_figure

    # The RBI MPC Minutes, August 2024, p. 4 (read by hand).
    sentence = (
        "The YOY real GDP growth in 2023-24 exceeded 8 per cent in the first three quarters, "
        "dropping to 7.8 per cent in Q4."
    )
    asked = understand("What was real GDP growth in Q4 2023-24?", LIBRARY)
    assert anchor_figure(sentence, asked) == ("7.8", "per cent")


def test_how_many_basis_points_asks_the_size_of_a_move_not_a_count() -> None:
    assert aspects_asked("By how many basis points did the board raise the policy rate in February 2023?") == {"change"}
    assert aspects_asked("How many members voted to raise the policy rate?") >= {"count"}


def test_one_end_of_a_range_is_not_the_value_asked() -> None:
    # The RBI Annual Report 2023-24, p. 35 (read by hand).
    sentence = "Inflation in food and beverages hovered in a wide range of 3.3 per cent to 10.6 per cent in 2023-24."
    passage = {"chunk_id": 5, "citation": "Annual Report 2023-24, p. 35", "url": "/d/5", "document_id": 5, "page": "35"}
    meta = {5: {"document_id": 5, "doc_type": "annual_report", "citation": "Annual Report 2023-24, p. 35"}}

    def level(question: str, figure: str, text: str = sentence) -> tuple[bool, str] | None:
        c = Composer(question)
        c.parts.append(f"Food inflation: {c.quote_claim(passage, figure, 'per cent', 'food inflation')}")
        c.quote(passage, text, "food inflation", figure_claim=False)
        checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(question, LIBRARY), c, meta)["checks"]}
        return checks.get("level")

    asked = "What was food inflation in 2023-24 according to the annual report?"
    ends = (False, "the figure is one end of a range, not the value asked")
    assert level(asked, "3.3") == ends and level(asked, "10.6") == ends
    assert level(asked, "7.5", "Food inflation averaged 7.5 per cent in 2023-24.") is None
    # A forecast range is the answer to a question about the forecast.
    assert level("What range did the annual report forecast for food inflation in 2023-24?", "3.3") is None


def test_a_weight_in_the_index_is_not_the_inflation_asked() -> None:
    from research.agent.evidence.anchors import anchor_figure

    # The RBI Annual Report 2023-24, p. 35 (read by hand): the food group's weight in the CPI basket.
    sentence = "Inflation in food and beverages (weight: 45.9 per cent in CPI) averaged 7.5 per cent in 2023-24."
    asked = "What was food inflation in 2023-24 according to the annual report?"
    assert anchor_figure(sentence, understand(asked, LIBRARY)) == ("7.5", "per cent")
    passage = {"chunk_id": 5, "citation": "Annual Report 2023-24, p. 35", "url": "/d/5", "document_id": 5, "page": "35"}
    meta = {5: {"document_id": 5, "doc_type": "annual_report", "citation": "Annual Report 2023-24, p. 35"}}
    c = Composer(asked)
    c.parts.append(f"Food inflation: {c.quote_claim(passage, '45.9', 'per cent', 'food inflation')}")
    c.quote(passage, sentence, "food inflation", figure_claim=False)
    checks = {x["check"]: (x["ok"], x["detail"]) for x in assess(understand(asked, LIBRARY), c, meta)["checks"]}
    assert checks["level"] == (False, "the figure is a weight in an index, not the value asked")


def test_a_bound_is_not_the_level_asked() -> None:
    from research.agent.evidence.anchors import anchor_figure

    # RBI MPC Minutes, December 2023, p. 6 (read by hand): "above 5%" bounds the projection; the
    # projection itself (5.2 per cent) is on p. 3. Reading 5 per cent as the level would be wrong.
    sentence = (
        "Given that inflation remains well above the target over the short term, with the projected headline CPI "
        "rate of above 5% up to Q1: 2024-25, there is a need to continue the policy support for sustaining the "
        "trajectory to the target."
    )
    asked = understand("What was the CPI inflation projection for Q1 2024-25 in the December 2023 minutes?", LIBRARY)
    assert anchor_figure(sentence, asked) is None
    # A bound beside a level: the level is read.
    both = "CPI inflation stayed above 4 per cent all year and reached 5.1 per cent in Q1 2024-25."
    assert anchor_figure(both, asked) == ("5.1", "per cent")


def _minutes_passage(title: str, page: int, text: str, chunk_id: int) -> dict[str, Any]:
    return {"chunk_id": chunk_id, "document_id": 1, "document_title": title, "page_number": page, "page": str(page),
            "citation": f"{title}, p. {page}", "url": f"/d/1/?page={page}", "text": text}  # fmt: skip


def test_a_month_that_only_begins_a_span_does_not_date_the_figure() -> None:
    from research.agent.evidence.select import candidates
    from research.agent.question.periods import find_periods, only_as_span_end

    # RBI MPC Minutes, February 2024, p. 9 (a member's statement, read by hand): 250 bps over nine months.
    sentence = (
        "First, it may be recalled that we had frontloaded our rate actions by raising the repo rate cumulatively "
        "by 250 bps during May 2022 to February 2023 unlike central banks in advanced economies."
    )
    may, june = find_periods("May 2022")[0], find_periods("June 2022")[0]
    assert only_as_span_end(sentence, may) and only_as_span_end(sentence, find_periods("February 2023")[0])
    assert not only_as_span_end("raised by 40 bps in May 2022 and by 50 bps in June 2022", may)
    assert not only_as_span_end("raised by 40 bps in May 2022 and by 50 bps in June 2022", june)
    question = "By how much did the RBI raise the repo rate in May 2022?"
    (cand,) = candidates(question, understand(question, LIBRARY), [_minutes_passage("Minutes", 9, sentence, 1)])
    assert cand.metric_ok and not cand.target_ok


def test_another_periods_sentence_without_a_figure_is_not_reported_as_having_one() -> None:
    from research.agent.compose.docs import compose_documents

    # RBI Annual Report 2023-24, p. 6 (read by hand): no ratio is stated in the sentence.
    sentence = (
        "The asset quality of SCBs improved further, along with moderation in the gross non-performing assets "
        "(GNPAs) as at end-September 2023."
    )
    question = "What was the gross NPA ratio of scheduled commercial banks at end-December 2024?"
    assert [t.label for t in understand(question, LIBRARY).targets] == ["December 2024"]
    c = Composer(question)
    passage = _minutes_passage("RBI Annual Report 2023-24", 6, sentence, 1)
    compose_documents(
        c, "rag_search", {"passages": [passage], "understanding": understand(question, LIBRARY).as_dict()}
    )
    assert not any("The library has the" in part for part in c.parts)
    assert c.outcome == "escalate"
