"""The formatting layer's field labels, costs and audit phrases (what the portal's pages took from
the interim display layer, now in core.formatting): expected strings written by hand."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.template import Context, Template

from core import formatting as f

M = "\u2212"
KOLKATA = zoneinfo.ZoneInfo("Asia/Kolkata")


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("brief_enabled", "Morning brief"),
        ("is_reference", "Team reference set"),
        ("mpc_minutes", "MPC minutes"),  # a document type: acronyms upper-case
        ("annual_report", "Annual report"),
        ("weight", "Weight"),
        ("change_1d_pct", "1-day change"),  # a metric key: its metric label, capitalised
        ("Annual report", "Annual report"),  # already words: as it is
    ],
)
def test_field_label(key: str, label: str) -> None:
    assert f.field_label(key) == label


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.123456789, "0.1235"),
        (1364.0, "1,364"),
        (-2.5, f"{M}2.5"),
        (12_345, "12,345"),
        (["INFY.NS", "TCS.NS"], "INFY.NS, TCS.NS"),
        (True, "yes"),
        (None, "—"),
        (dt.date(2025, 9, 30), "30 Sep 2025"),
        ("2026-12-01T18:55:34.854107+05:30", "1 Dec 2026, 18:55"),
        ("2026-12-01T10:04:44+00:00", "1 Dec 2026, 15:34"),  # shown in Asia/Kolkata
        ({"brief_enabled": False}, "Morning brief: no"),
    ],
)
def test_plain(value: object, expected: str) -> None:
    assert f.plain(value, tz=KOLKATA) == expected


def test_changes_list_only_what_changed() -> None:
    before = {"name": "India", "tickers": ["INFY.NS"], "brief_enabled": False}
    after = {"name": "India", "tickers": ["INFY.NS", "TCS.NS"], "brief_enabled": True}
    assert f.changes(before, after) == [("Tickers", "INFY.NS", "INFY.NS, TCS.NS"), ("Morning brief", "no", "yes")]
    assert f.changes(None, {"attempted": "x@example.test"}) == [("Attempted", "—", "x@example.test")]
    assert f.changes(None, None) == []


def test_costs_and_index_symbols() -> None:
    assert f.usd(0.25) == "$0.25"
    assert f.usd(0.0012) == "$0.0012"
    assert f.usd(0) == "$0.00" and f.usd(None) == "—"
    assert f.usd(-1234.5) == "\u2212$1,234.50"  # the minus before the dollar sign, as every money figure
    assert f.usd(-0.00001) == "$0.0000"  # rounds to zero: no sign
    assert f.is_index_symbol("^NSEI") and not f.is_index_symbol("TCS.NS")


def test_template_filters() -> None:
    html = Template(
        "{% load figures %}{{ r|signed_fraction_pct }}|{{ c|usd }}|{{ t|field_label }}|"
        "{% changes b a as rows %}{% for k, o, n in rows %}{{ k }}: {{ o }} → {{ n }}{% endfor %}"
    ).render(Context({"r": 0.5381, "c": 0.0012, "t": "mpc_minutes", "b": {"weight": 0.1}, "a": {"weight": 0.25}}))
    assert html == "+53.81%|$0.0012|MPC minutes|Weight: 0.1 → 0.25"
