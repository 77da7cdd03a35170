"""Market answers read as the pages do: a market cap in its currency and compact (``$3.7T``), not
thirteen digits and a currency code; dates as ``30 Sep 2025``, never ISO. Expected values are read
from the shipped snapshot files (data/market), formatted by hand."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from research.agent.verify.claims import render_text

pytestmark = pytest.mark.django_db

MARKET = Path(__file__).resolve().parents[3] / "data" / "market"
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _by_hand(iso: str) -> str:
    year, month, day = (int(part) for part in iso.split("-"))
    return f"{day} {MONTHS[month - 1]} {year}"


def _last_bar(symbol: str) -> dict[str, str]:
    with (MARKET / "bars" / f"{symbol}.csv").open(newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["close"]][-1]


def test_a_market_cap_is_compact_with_its_currency(ask: Any) -> None:
    apple = json.loads((MARKET / "fundamentals.json").read_text())["AAPL"]
    assert apple["market_cap"] == 3688676720640 and apple["currency"] == "USD"  # $3.69 trillion
    turn = ask("What is Apple's market cap and P/E? (AAPL)")
    answer = render_text(turn.answer, turn.claims)
    assert turn.status == "done", answer
    assert "market cap $3.7T," in answer
    assert "3,688,676,720,640" not in answer and "USD" not in answer
    assert "trailing P/E 38.91" in answer
    assert not ISO_DATE.search(answer), answer  # the snapshot says when Yahoo's record was taken, as a date


def test_market_answers_write_dates_as_the_pages_do(ask: Any) -> None:
    last = _last_bar("INFY.NS")
    turn = ask("What is the latest price of INFY?")
    answer = render_text(turn.answer, turn.claims)
    assert f"on {_by_hand(last['date'])}" in answer, answer
    assert not ISO_DATE.search(answer), answer
    turn = ask("How has INFY performed over the last year compared with TCS?")
    answer = render_text(turn.answer, turn.claims)
    assert turn.plan_path == "horizon_returns" and not ISO_DATE.search(answer), answer
