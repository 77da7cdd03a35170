"""The chat verifier at the edges of its checks, without a database: the calc tolerance, claims
with fields left out, quotes that are (or are not) verbatim, and numbers right beside the marks,
names and dates the verifier takes out. Every expected value is written by hand."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from research.agent.verify.claims import check_claim, verify_answer

VOTES = "Resolution ... Member Vote Dr. A Yes Dr. B Yes Prof. C No Statement by Dr. A"  # 2 for, 1 against
PASSAGE = "CPI inflation is projected at\n4.5 per cent, for 2024-25."


def no_bars(symbol: str) -> tuple[list[dt.date], list[float]]:
    raise AssertionError("no bars are read for these claims")


def problems(template: str, *, question: str = "", names: tuple[str, ...] = (), **kw: Any) -> list[str]:
    kw.setdefault("chunk_texts", {3: PASSAGE})
    kw.setdefault("citations", [{"chunk_id": 3}])
    result = verify_answer(template, kw.pop("claims", []), question=question, outputs={}, bars=no_bars,
                           names=names, **kw)  # fmt: skip
    assert result["status"] == ("failed" if result["problems"] else "verified")
    return list(result["problems"])


@pytest.mark.parametrize(
    ("expression", "value", "ok"),
    [
        ("1 - 1", 1e-6, True),  # off by exactly the tolerance of a value under 1: still the same figure
        ("1 - 1", 1.5e-6, False),
        ("10 * 100", 1000.0005, True),  # the tolerance grows with the value: 1e-6 × 1000
        ("10 * 100", 1000.002, False),
    ],
)
def test_a_calculation_agrees_within_a_millionth_of_its_size(expression: str, value: float, ok: bool) -> None:
    calc = {"id": "c2", "kind": "calc", "expression": expression, "value": value}
    assert (check_claim(calc, {}, {}, no_bars) is None) is ok


def test_claims_with_fields_left_out() -> None:
    # no expression: nothing to recompute
    assert check_claim({"id": "c2", "kind": "calc", "value": 1.0}, {}, {}, no_bars) == "c2: cannot recompute"
    # a table claim without its chunk reads chunk 0; without "against" it cannot match a count
    table = {"id": "c3", "kind": "table", "value": 2, "against": 1, "display": "2 to 1"}
    assert check_claim(table, {}, {0: VOTES}, no_bars) is None
    assert check_claim({**table, "chunk_id": 1}, {}, {0: VOTES}, no_bars) == (
        "c3: re-counting the table gives None, the claim says '2 to 1'"
    )
    no_against = {"id": "c3", "kind": "table", "chunk_id": 0, "value": 2, "display": "2"}
    assert check_claim(no_against, {}, {0: VOTES}, no_bars) == (
        "c3: re-counting the table gives (2, 1), the claim says '2'"
    )
    # a quote checks its figure as quoted, which may differ from how it is displayed
    quote = {"id": "c4", "kind": "quote", "display": "4.5 % (RBI)", "quote_figure": "4.5 per cent"}
    assert check_claim(quote, {}, {0: PASSAGE}, no_bars) is None
    assert check_claim({**quote, "chunk_id": 3}, {}, {0: PASSAGE}, no_bars) == (
        "c4: the cited passage does not contain '4.5 % (RBI)'"
    )
    missing = {"id": "c4", "kind": "quote", "chunk_id": 8, "display": "XX"}  # no such passage
    assert check_claim(missing, {}, {0: PASSAGE}, no_bars) == "c4: the cited passage does not contain 'XX'"


def test_a_quote_must_be_verbatim_in_a_cited_passage() -> None:
    assert problems("It is “projected at 4.5 per cent.”") == []  # trailing punctuation and line breaks
    no_chunk_id = [{"chunk_id": None}]  # reads chunk 0
    assert problems("It is “projected at 4.5 per cent.”", citations=no_chunk_id, chunk_texts={0: PASSAGE}) == []
    web = ["RBI: CPI projected at\t4.5  per cent"]
    assert problems("“projected at 4.5 per cent…”", citations=[], web_texts=web) == []
    long = "projected at 4.6 per cent for the year, said the Governor of the Reserve Bank"
    assert problems(f"“{long}”") == [f"the quote “{long[:60]}…” is not verbatim in a cited passage"]
    assert problems("“…”") == ["the quote “……” is not verbatim in a cited passage"]  # nothing left to find
    assert problems("“XX”", citations=[{"chunk_id": 8}]) == ["the quote “XX…” is not verbatim in a cited passage"]
    # a misquote is refused even when what is left after its first letter is in the passage
    assert problems("“Xylem”", chunk_texts={3: "the ylem report"}) == [
        "the quote “Xylem…” is not verbatim in a cited passage"
    ]


def test_numbers_beside_what_is_taken_out_are_still_figures() -> None:
    stray = "the figure {} is neither a tool claim nor a quoted passage".format
    assert problems("[Source: note]7 more") == [stray("7")]
    assert problems("“projected at 4.5 per cent”8") == [stray("8")]
    assert problems("[[c1]]5", claims=[{"id": "c1", "kind": "calc", "expression": "2", "value": 2.0}]) == [stray("5")]
    assert problems("NIFTY 509", names=("NIFTY 50",)) == [stray("9")]
    assert problems("AZ 5 6", names=("Z 5", "AZ 5 6")) == []  # the longest name is taken out first
    assert problems("30-day-7") == [stray("-7")]
    assert problems("on 2025-09-30-7") == [stray("-7")]
    assert problems("up 1,234") == [stray("1234")]
    assert problems("up 1234", question="from 1,234?") == []
    assert problems("down -7", question="on 2025-09-30-7?") == []
