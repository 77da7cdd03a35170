"""The eight failure classes of issue 13, each on examples of our own, over the whole shipped corpus
(every MPC minutes and the Annual Report) on the deterministic engine.

Expected values are read from the documents' raw PDF text (pypdfium2) or computed here with plain
Python from the shipped CSVs — never taken from the code under test.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from research.agent.verify.claims import render_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_library")]


def signed_pct(value: float) -> str:
    """A change as the portal writes it, by hand: signed, 2 dp, U+2212 minus, no space before %."""
    return f"{value:+.2f}%".replace("-", "\u2212")


ROOT = Path(__file__).resolve().parents[3]
NOTE = (
    "# Macro desk note: CPI outlook, September 2024\n\n"
    "We project CPI inflation for Q3 2024-25 at 5.1 per cent, above the Reserve Bank's path, because "
    "food prices are sticky.\n\n"
    "Our March 2024 note had projected CPI inflation for Q3 2023-24 at 5.6 per cent.\n\n"
    "The zarzuela basket of pulses, our own index of eleven pulses, rose fastest in the quarter.\n"
)


@pytest.fixture
def library(demo_library: dict[str, Any]) -> dict[str, Any]:
    return demo_library


def text(turn: Any) -> str:
    return " ".join(render_text(turn.answer, turn.claims).split())


def cited(turn: Any, library: dict[str, Any]) -> list[tuple[str, str]]:
    stems = {doc.pk: stem for stem, doc in library.items()}
    return [(stems.get(c.get("document_id"), "?"), str(c.get("page"))) for c in turn.citations]


def upload_note(user: Any, capture: Any, name: str = "desk-note.md", data: str = NOTE) -> Any:
    from research.services import UploadFile, document_ingest, document_upload

    with capture(execute=False):
        result = document_upload(user=user, files=[UploadFile(name=name, data=data.encode())], visibility="private")
    return document_ingest(document_id=result.created[0].pk)


# 1. A single retrieved sentence answered part of the question -----------------------------------
def test_1_change_and_level_and_the_vote_with_names_come_together(ask: Any, library: dict[str, Any]) -> None:
    # Feb 2019 minutes p.1: "reduce the policy repo rate ... by 25 basis points from 6.5 per cent to 6.25 per cent"
    decision = ask("What did the MPC decide on the policy repo rate at its February 2019 meeting?")
    answer = text(decision)
    assert decision.status == "done" and decision.verification["status"] == "verified"
    assert "was cut by 25 basis points to 6.25 per cent" in answer
    assert ("reserve_bank_of_india_05-02-2019", "1") in cited(decision, library)
    # Aug 2024 p.4 voting table: Goyal No, Varma No, four Yes — counts and names from the parsed rows.
    vote = ask("What was the vote split at the August 2024 MPC meeting and who dissented?")
    answer = text(vote)
    assert "was 4–2" in answer and "against — Dr. Ashima Goyal and Prof. Jayanth R. Varma" in answer
    assert "Member Vote Dr." not in answer.split("“")[0]  # the direct line is not the table's header
    table = next(c for c in vote.claims if c["kind"] == "table")
    assert (table["value"], table["against"], table["verified"]) == (4, 2, True)


def test_who_voted_against_a_unanimous_vote_is_answered_no_one(ask: Any, library: dict[str, Any]) -> None:
    # Aug 2019 p.6 voting table: all six members "Yes" (Ghate and Dua for 25 bps, the others for 35).
    unanimous = text(ask("Who voted against the rate cut in August 2019?"))
    assert unanimous.startswith("No member voted against. The vote in RBI MPC Minutes, August 2019 was 6–0")
    # Aug 2024 p.4: two "No" — they are named, and no one is said to have voted with the rest.
    split = text(ask("Who voted against keeping the repo rate unchanged in August 2024?"))
    assert "No member voted against" not in split and "against — Dr. Ashima Goyal and Prof. Jayanth R. Varma" in split


# 2. Relative follow-ups ----------------------------------------------------------------------------
def test_2_following_before_that_and_same_meeting_last_year(ask: Any, library: dict[str, Any]) -> None:
    first = ask("What policy repo rate did the MPC decide in October 2023?")
    following = ask("And at the following meeting?", conversation=first.conversation)
    assert "December 2023" in following.resolved_question
    assert cited(following, library)[0][0] == "reserve_bank_of_india_06-12-2023"
    before = ask("And the meeting before that?", conversation=following.conversation)
    assert cited(before, library)[0][0] == "reserve_bank_of_india_04-10-2023"
    again = ask("And the one before that?", conversation=before.conversation)
    assert cited(again, library)[0][0] == "reserve_bank_of_india_08-08-2023"
    vote = ask("How did the MPC members vote at the August 2024 meeting?")
    last_year = ask("And at the same meeting last year?", conversation=vote.conversation)
    assert cited(last_year, library)[0][0] == "reserve_bank_of_india_08-08-2023"
    assert "6–0" in text(last_year)  # Aug 2023 p.4: six Yes


def test_2_the_series_has_an_end(ask: Any, library: dict[str, Any]) -> None:
    first = ask("What policy repo rate did the MPC decide in October 2016?")  # the first meeting in the library
    earlier = ask("And at the previous meeting?", conversation=first.conversation)
    assert earlier.status == "done" and not earlier.claims
    assert "no RBI MPC Minutes for the document before RBI MPC Minutes, October 2016" in text(earlier)


# 3. Questions that name the Annual Report -------------------------------------------------------------
def test_3_annual_report_questions_are_answered_with_a_citation(ask: Any, library: dict[str, Any]) -> None:
    # printed p.43, II.4.4: "balance sheet size increased to 24.1 per cent of GDP at end-March 2024"
    turn = ask(
        "What was the Reserve Bank's balance sheet size as a share of GDP at end-March 2024, per the annual report?"
    )
    assert turn.status == "done" and turn.verification["status"] == "verified"
    assert "24.1 per cent" in text(turn)
    assert ("rbi-annual-report-2023-24", "43") in cited(turn, library)


# 4. Calculations on earlier turns -----------------------------------------------------------------
def test_4_a_calculation_names_its_operands_and_refuses_the_wrong_rate(ask: Any) -> None:
    # Jun 2022 p.1 "to 4.90 per cent", Aug 2022 p.1 "to 5.40 per cent": (5.40 / 4.90 - 1) x 100 = 10.20
    first = ask("What did the MPC decide on the policy repo rate in June 2022?")
    second = ask("And at the following meeting?", conversation=first.conversation)
    calc = ask("What is the percentage increase between those two rates?", conversation=second.conversation)
    answer = text(calc)
    assert "Result: +10.20%" in answer
    assert "4.90 per cent (policy repo rate) [Source: RBI MPC Minutes, June 2022" in answer
    assert "5.40 per cent (policy repo rate) [Source: RBI MPC Minutes, August 2022" in answer
    assert calc.verification["status"] == "verified"
    # The repo rate, then the reverse repo rate: two different measures, no percentage change of them.
    repo = ask("What policy repo rate did the MPC decide in December 2020?")
    reverse = ask("What was the reverse repo rate after the December 2020 MPC meeting?", conversation=repo.conversation)
    refused = ask("What is the percentage change between those two?", conversation=reverse.conversation)
    assert refused.plan_path == "refused" and not [c for c in refused.claims if c["kind"] == "calc"]
    assert "I did not calculate this: the two figures measure different things" in text(refused)


def test_4_a_figure_an_earlier_turn_did_not_establish_is_not_an_operand(
    ask: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    upload_note(analyst, django_capture_on_commit_callbacks)
    missing = ask("What CPI inflation does our note project for Q1 2025-26?")
    assert "not for Q1 2025-26" in text(missing)
    found = ask("What Q3 2024-25 CPI does our note project?", conversation=missing.conversation)
    refused = ask("What is the percentage change between those two?", conversation=found.conversation)
    assert refused.plan_path == "refused"
    assert "did not establish the figure asked for" in text(refused)


# 5. A wrong answer marked verified -----------------------------------------------------------------
def test_5_our_note_is_the_users_upload_and_another_period_is_not_verified(
    ask: Any, analyst: Any, library: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    note = upload_note(analyst, django_capture_on_commit_callbacks)
    turn = ask("What Q3 2024-25 CPI does our note project?")
    assert "5.1 per cent" in text(turn)
    assert {c["document_id"] for c in turn.citations} == {note.pk}  # not the Aug 2024 minutes' "Q3 at 4.7"
    assert turn.verification["status"] == "verified" and turn.verification["answers"]["ok"] is True
    other = ask("What CPI inflation does our note project for Q1 2025-26?")
    assert other.verification["status"] != "verified" or other.verification["answers"]["ok"] is not True
    assert other.verification["answers"]["outcome"] == "no_document"
    assert "The library has the CPI inflation for Q3 2023-24" in text(other)


def test_5_no_document_for_the_period_named(ask: Any) -> None:
    turn = ask("What did the MPC decide at its October 2019 meeting?")  # no minutes for Oct 2019 in the library
    answer = text(turn)
    assert turn.status == "done" and not turn.claims
    assert "The library has no RBI MPC Minutes for October 2019" in answer
    assert "RBI MPC Minutes, August 2019 and RBI MPC Minutes, May 2020" in answer


# 6. Market horizons and portfolios --------------------------------------------------------------------
def _closes(symbol: str) -> dict[dt.date, float]:
    path = ROOT / "data" / "market" / "bars" / f"{symbol.lstrip('^')}.csv"
    with path.open() as handle:
        return {dt.date.fromisoformat(r["date"]): float(r["close"]) for r in csv.DictReader(handle)}


def test_6_a_comparison_uses_the_horizon_asked_and_the_benchmark_on_the_same_dates(ask: Any) -> None:
    infy, tcs, nifty = _closes("INFY.NS"), _closes("TCS.NS"), _closes("^NSEI")
    end = max(set(infy) & set(tcs) & set(nifty))  # the last day all three traded (2025-08-08)
    base = end.replace(year=end.year - 1)

    def ret(series: dict[dt.date, float]) -> str:
        start = series[max(d for d in series if d <= base)]
        return signed_pct((series[end] / start - 1) * 100)

    turn = ask("How has INFY performed over the last year compared with TCS?")
    answer = text(turn)
    assert turn.plan_path == "horizon_returns" and turn.verification["status"] == "verified"
    assert f"INFY.NS {ret(infy)}" in answer and f"TCS.NS {ret(tcs)}" in answer
    assert f"returned {ret(nifty)} over the same dates" in answer
    assert "INFY.NS did better" in answer and "30-day" not in answer


def test_6_a_saved_portfolio_gets_a_summary_table_and_its_page(ask: Any, analyst: Any) -> None:
    from portfolios.services import portfolio_create

    portfolio, _ = portfolio_create(user=analyst, name="Core India", holdings=[("INFY.NS", 0.5), ("TCS.NS", 0.5)])
    infy, tcs = _closes("INFY.NS"), _closes("TCS.NS")
    days = sorted(set(infy) & set(tcs))
    turn = ask("How has my Core India portfolio performed?")
    answer = render_text(turn.answer, turn.claims)
    assert turn.status == "done" and turn.verification["status"] == "verified"
    assert "| Holding | Weight | Total return |" in answer
    assert signed_pct((infy[days[-1]] / infy[days[0]] - 1) * 100) in answer
    assert f"[Link: Open the portfolio page | /portfolios/{portfolio.pk}/]" in answer


# 7. Exact phrases and rare terms ------------------------------------------------------------------------
def test_7_an_exact_phrase_or_a_rare_term_brings_its_passage_into_the_top_3(
    analyst: Any, library: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from research.selectors import passage_search

    note = upload_note(analyst, django_capture_on_commit_callbacks)
    for query in ("our own index of eleven pulses", "zarzuela"):
        top = passage_search(user=analyst, query=query, top_k=3)
        assert note.pk in [p.chunk.document_id for p in top], query
    # Aug 2024 minutes, PDF p.7: "That Delhi now gets tomatoes from Karnataka as well as Himachal Pradesh"
    top = passage_search(user=analyst, query="Delhi now gets tomatoes from Karnataka", top_k=3)
    assert (library["reserve_bank_of_india_06-08-2024"].pk, "7") in [
        (p.chunk.document_id, p.chunk.page_label) for p in top
    ]


# 8. Duplicates -------------------------------------------------------------------------------------------
def test_8_a_reupload_links_to_the_team_copy_and_search_never_repeats_a_passage(
    analyst: Any, library: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from research.selectors import passage_search
    from research.services import UploadFile, document_upload

    pdf = ROOT / "data" / "rbi" / "mpc-minutes" / "reserve_bank_of_india_06-08-2024.pdf"
    with django_capture_on_commit_callbacks(execute=False):
        result = document_upload(user=analyst, files=[UploadFile(name=pdf.name, data=pdf.read_bytes())])
    assert result.created == [] and result.duplicates == [library["reserve_bank_of_india_06-08-2024"]]
    # A second copy of a note (as two uploads made before copies were linked would leave) ...
    upload_note(analyst, django_capture_on_commit_callbacks, name="copy-a.md")
    upload_note(analyst, django_capture_on_commit_callbacks, name="copy-b.md", data=NOTE + "\n")
    passages = passage_search(user=analyst, query="zarzuela basket of pulses", top_k=10)
    texts = [" ".join(p.chunk.text.split()) for p in passages]
    assert len(texts) == len(set(texts)) and texts  # ... is returned once
