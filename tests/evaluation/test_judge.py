"""The deterministic judge: number normalisation, figure matching, exact recomputation, citations
and tracing of shown figures. Expected values are written by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from evaluation import judge


@pytest.mark.parametrize(
    ("expected", "shown"),
    [
        ("6.50%", "the repo rate was kept at 6.5 per cent"),
        ("6.5 per cent", "unchanged at 6.50%"),
        ("6.50%", "6.50 percent"),
        ("1441.80", "last close 1,441.80 INR"),
        ("-3.85%", "Result: -3.85 %"),
        ("1410000", "₹14,10,000 crore"),
        ("25 bps", "a cut of 25 basis points"),
        ("-0.27%", "1-day change −0.27 %"),
    ],
)
def test_expected_figure_is_found_after_normalisation(expected: str, shown: str) -> None:
    assert judge.missing_figures([expected], shown) == []


@pytest.mark.parametrize(
    ("expected", "shown"),
    [
        ("6.50%", "6.25 per cent"),
        ("6.50%", "6.5 bps"),  # a percent is not basis points
        ("1441.80", "1,441.90"),
        ("2.88%", "2.9 %"),  # shown less precisely than expected: 2.9 does not round to 2.88
    ],
)
def test_a_different_figure_is_missing(expected: str, shown: str) -> None:
    assert judge.missing_figures([expected], shown) == [expected]


def test_figure_parse_units_and_places() -> None:
    assert judge.figure("6.5 per cent") == judge.Figure(Decimal("6.5"), 1, "%")
    assert judge.figure("−12.14%") == judge.Figure(Decimal("-12.14"), 2, "%")
    with pytest.raises(ValueError, match="exactly one figure"):
        judge.figure("6.5 and 7.0")


def test_exact_recompute_of_calculator_expressions() -> None:
    assert judge.recompute("pct_change(6.50, 6.25)") == pytest.approx(-3.846153846, abs=1e-9)
    assert judge.recompute("(1523.2 - 1480.5) / 1480.5 * 100") == pytest.approx(2.884160756, abs=1e-9)
    assert judge.recompute("0.4*12.1 + 0.6*8.3") == Decimal("9.82")  # exact: Fraction compares equal
    assert judge.recompute("12.5% * 200") == 25
    assert judge.recompute("__import__('os')") is None


CHUNKS = {
    7: {
        "text": "the MPC decided to keep the policy repo rate unchanged at 6.50 per cent.",
        "title": "RBI MPC Minutes, August 2024",
        "page": "3",
        "stem": "x",
    },
}


def test_citation_resolves_only_to_its_stored_passage_title_and_page() -> None:
    good = {"chunk_id": 7, "citation": "RBI MPC Minutes, August 2024, p. 3", "quote": "unchanged at 6.50 per cent."}
    assert judge.citation_resolves(good, CHUNKS)
    assert not judge.citation_resolves({**good, "citation": "RBI MPC Minutes, August 2024, p. 4"}, CHUNKS)
    assert not judge.citation_resolves({**good, "quote": "unchanged at 6.25 per cent."}, CHUNKS)
    assert not judge.citation_resolves({**good, "chunk_id": 99}, CHUNKS)


def test_a_pdf_citation_names_the_pdf_page_when_the_printed_page_differs() -> None:
    chunk = {"text": "Total net sales 81,797", "title": "Apple 10-Q", "page": "1", "page_number": 4, "kind": "pdf"}
    chunks = {8: chunk}
    cited = {"chunk_id": 8, "citation": "Apple 10-Q, p. 1 (PDF p. 4)", "quote": "Total net sales 81,797"}
    assert judge.citation_resolves(cited, chunks)
    assert not judge.citation_resolves({**cited, "citation": "Apple 10-Q, p. 1"}, chunks)
    assert not judge.citation_resolves({**cited, "citation": "Apple 10-Q, p. 4"}, chunks)
    # A text file's pages are its form feeds: the label alone.
    text = {9: {**chunks[8], "kind": "text"}}
    assert judge.citation_resolves({**cited, "chunk_id": 9, "citation": "Apple 10-Q, p. 1"}, text)


def test_trace_figures_counts_quotes_tool_claims_and_refuses_the_rest() -> None:
    steps = [{"node": "market_data", "outputs": {"calls": [{"last_close": 1441.8}]}}]
    claims = [
        {
            "kind": "tool",
            "result_key": "market_data:0",
            "path": ["calls", 0, "last_close"],
            "value": 1441.8,
            "display": "1,441.80",
        },
        {"kind": "calc", "expression": "pct_change(6.50, 6.25)", "value": -3.8461538461538463, "display": "-3.85 %"},
    ]
    answer = (
        "“the MPC decided to keep the policy repo rate unchanged at 6.50 per cent.” "
        "[Source: RBI MPC Minutes, August 2024, p. 3]\n"
        "INFY last close 1,441.80 INR on 2025-09-30, 30-day return n/a. "
        "Result: -3.85 % [Calculated: pct_change(6.50, 6.25)]"
    )
    assert judge.trace_figures(answer, "question", claims, steps, CHUNKS) == (3, 3, [])
    traced, shown, problems = judge.trace_figures(
        answer + " The rate will be 9.25 per cent.", "q", claims, steps, CHUNKS
    )
    assert (traced, shown) == (3, 4) and "9.25" in problems[0]
    # A tool claim whose stored output says something else is not traced.
    moved = [{"node": "market_data", "outputs": {"calls": [{"last_close": 1441.81}]}}]
    assert judge.trace_figures("close 1,441.80", "q", claims, moved, CHUNKS)[:2] == (0, 1)
    # A figure the question gave may be repeated.
    assert judge.trace_figures("You asked about 2,500.", "INFY closed at 2,500", [], [], {})[:2] == (0, 0)


def test_a_vote_split_is_one_compound_figure_matched_whole() -> None:
    # A vote split such as 4–2 is one figure: "4" and "2" found apart are not the split.
    assert judge.missing_figures(["4–2"], "The MPC voted 4-2 to keep the repo rate.") == []
    assert judge.missing_figures(["4–2"], "The MPC voted 4 – 2 to keep the repo rate.") == []
    assert judge.missing_figures(["4–2"], "Four members (2 external) voted; 4 in favour.") == ["4–2"]
    assert judge.expected_figure("6–0") == "6–0"
    with pytest.raises(ValueError):
        judge.expected_figure("no figure here")


VOTES = {
    5: {
        "text": "15. The next meeting of the MPC is scheduled during October 7 to 9, 2024. Voting on the Resolution to "
        "keep the policy repo rate unchanged at 6.50 per cent Member Vote Dr. Shashanka Bhide Yes Dr. Ashima Goyal No "
        "Prof. Jayanth R. Varma No Dr. Rajiv Ranjan Yes Dr. Michael Debabrata Patra Yes Shri Shaktikanta Das Yes "
        "Statement by Dr. Shashanka Bhide",
        "title": "RBI MPC Minutes, August 2024",
        "page": "4",
        "stem": "reserve_bank_of_india_06-08-2024",
    }
}


def test_a_vote_split_is_traced_by_recounting_the_stored_table() -> None:
    # The August 2024 table (p. 4): four Yes, two No — counted by hand.
    vote = {"kind": "table", "value": 4, "against": 2, "display": "4–2", "chunk_id": 5}
    assert judge.vote_tallies(VOTES[5]["text"]) == {(4, 2)}
    assert judge.trace_figures("The vote was 4–2.", "Who dissented?", [vote], [], VOTES) == (2, 2, [])
    wrong = {**vote, "value": 5, "against": 1, "display": "5–1"}
    assert judge.trace_figures("The vote was 5–1.", "q", [wrong], [], VOTES)[:2] == (0, 2)


def test_one_sides_count_is_traced_by_recounting_the_stored_table() -> None:
    # "2 members voted to cut …": the table's two No votes (counted by hand above).
    side = {"kind": "table", "value": 2, "against": 0, "side": "against", "display": "2", "chunk_id": 5}
    assert judge.trace_figures("2 members voted to cut it.", "How many?", [side], [], VOTES)[:2] == (1, 1)
    for wrong in ({**side, "side": "for"}, {**side, "value": 3, "display": "3"}, {**side, "display": "4"}):
        assert judge.trace_figures(f"{wrong['display']} members voted to cut it.", "q", [wrong], [], VOTES)[:2] == (
            0,
            1,
        )


def test_link_paths_and_tool_given_names_are_not_figures() -> None:
    steps = [{"node": "market_data", "outputs": {"calls": [{"benchmark": {"name": "NIFTY 50", "return_pct": 1.02}}]}}]
    claim = {"kind": "tool", "result_key": "market_data:0", "path": ["calls", 0, "benchmark", "return_pct"]}
    claims = [{**claim, "value": 1.02, "display": "1.02 %"}]
    shown = "The benchmark ^NSEI (NIFTY 50) returned 1.02 %. [Link: Open the portfolio page | /portfolios/2/]"
    assert judge.trace_figures(shown, "q", claims, steps, {}) == (1, 1, [])
    # A name only a web page gave is not taken on trust: its number stays a figure to trace.
    web = [{"node": "web_search", "outputs": {"results": [{"name": "NIFTY 50", "snippet": "x"}]}}]
    assert judge.trace_figures("NIFTY 50 rose.", "q", [], web, {})[:2] == (0, 1)


def test_a_web_citation_resolves_to_its_stored_result() -> None:
    hit = {"url": "https://news.example/a", "title": "Banks rally", "snippet": "Lenders rallied on Tuesday."}
    steps = [{"node": "web_search", "outputs": {"results": [hit]}}]
    cite = {
        "citation": "Banks rally — https://news.example/a",
        "url": hit["url"],
        "quote": "Lenders rallied on Tuesday.",
    }
    assert judge.citation_resolves_web({**cite, "web": True}, steps)
    assert not judge.citation_resolves_web({**cite, "quote": "Lenders fell."}, steps)
    assert not judge.citation_resolves_web({**cite, "citation": "Banks fall — https://news.example/a"}, steps)
    assert not judge.citation_resolves_web(cite, [])


def test_a_figure_in_a_cited_documents_title_is_a_name_not_a_figure() -> None:
    chunks = {7: {"text": "Total net sales 81,797 82,959", "title": "Apple Inc. Form 10-Q, Q3 2023", "page": "1"}}
    quoted = "The figure, according to Apple Inc. Form 10-Q, Q3 2023: “Total net sales 81,797 82,959”"
    assert judge.trace_figures(quoted, "q", [], [], chunks) == (2, 2, [])
    # The same number outside the title is a figure and must be traced.
    assert judge.trace_figures("Apple filed 10 forms.", "q", [], [], chunks)[:2] == (0, 1)


def test_a_statement_cell_is_traced_to_the_passage_or_passages_holding_its_row() -> None:
    chunks = {
        5: {"text": "Net sales: Products $ 60,584 $ 63,355 Services 21,213", "title": "10-Q", "page": "1"},
        6: {"text": "19,604 Total net sales 81,797 82,959", "title": "10-Q", "page": "1"},
    }
    cell = {"kind": "cell", "chunk_id": 6, "quote_figure": "81,797", "value": 81797.0, "display": "$81,797 million"}
    assert judge.trace_figures("Total net sales were $81,797 million.", "q", [cell], [], chunks) == (1, 1, [])
    split = {**cell, "chunk_id": 5, "chunk_next": 6}  # the row starts in one passage, runs on in the next
    assert judge.claim_traced(split, [], chunks)
    made_up = {**cell, "quote_figure": "81,800", "display": "$81,800 million"}
    assert not judge.claim_traced(made_up, [], chunks)
    assert judge.trace_figures("Total net sales were $81,800 million.", "q", [made_up], [], chunks)[:2] == (0, 1)


def test_the_members_of_one_magnitude_are_traced_by_counting_it_in_the_stored_table() -> None:
    # August 2019, p. 6: two members for 25 basis points, four for 35 (counted by hand from the PDF).
    table = (
        "Voting on the Resolution to reduce the policy repo rate Member Vote Magnitude of policy repo rate reduction "
        "(basis points) Dr. Chetan Ghate Yes 25 Dr. Pami Dua Yes 25 Dr. Ravindra H. Dholakia Yes 35 Dr. Michael "
        "Debabrata Patra Yes 35 Shri Bibhu Prasad Kanungo Yes 35 Shri Shaktikanta Das Yes 35"
    )
    chunks = {6: {"text": table}}
    four = {"kind": "table", "value": 4, "against": 0, "extra": "35", "display": "4", "chunk_id": 6}
    assert judge.trace_figures("4 members voted for it.", "How many?", [four], [], chunks)[:2] == (1, 1)
    for wrong in ({**four, "extra": "25"}, {**four, "value": 6, "display": "6"}, {**four, "display": "5"}):
        shown = f"{wrong['display']} members voted for it."
        assert judge.trace_figures(shown, "q", [wrong], [], chunks)[:2] == (0, 1)
