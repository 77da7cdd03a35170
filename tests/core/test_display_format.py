"""The interim number layer: what a person reads for each kind of figure (expected strings by hand)."""

from __future__ import annotations

import datetime as dt

import pytest

from core import display_format as fmt


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: fmt.price(2888.4, "INR"), "₹2,888.40"),
        (lambda: fmt.price(187.2, "USD"), "$187.20"),
        (lambda: fmt.price(24363.3, "INR", index=True), "24,363.30 pts"),
        (lambda: fmt.price(12.5, "CHF"), "12.50 CHF"),
        (lambda: fmt.price(None, "INR"), "—"),
        (lambda: fmt.signed_pct(-0.2658701), "-0.27 %"),
        (lambda: fmt.signed_pct(0.5), "+0.50 %"),
        (lambda: fmt.signed_pct(-0.001), "0.00 %"),  # no "-0.00 %"
        (lambda: fmt.signed_pct(0.5381, fraction=True), "+53.81 %"),
        (lambda: fmt.pct(0.055), "5.50 %"),
        (lambda: fmt.amount(1.234e12, "INR", indian=True), "₹1.23 lakh crore"),
        (lambda: fmt.amount(2.5e9, "USD"), "$2.50 B"),
        (lambda: fmt.number(float("nan")), "—"),
        (lambda: fmt.metric_label("change_1d_pct"), "1-day change"),
        (lambda: fmt.metric_label("some_new_metric_pct"), "Some new metric (%)"),
        (lambda: fmt.metric_label("weight"), "Weight"),
        (lambda: fmt.metric_label("mpc_minutes"), "MPC minutes"),
        (lambda: fmt.plain(0.123456789), "0.1235"),
        (lambda: fmt.plain(1364.0), "1,364"),
        (lambda: fmt.plain(["INFY.NS", "TCS.NS"]), "INFY.NS, TCS.NS"),
        (lambda: fmt.plain(True), "yes"),
        (lambda: fmt.plain("2026-12-01T18:55:34.854107+05:30"), "2026-12-01 18:55"),  # TIME_ZONE Asia/Kolkata
        (lambda: fmt.plain("2026-12-01T10:04:44+00:00"), "2026-12-01 15:34"),
        (lambda: fmt.plain(dt.date(2025, 9, 30)), "2025-09-30"),
    ],
)
def test_figures_read_as_a_person_expects(call: object, expected: str) -> None:
    assert call() == expected  # type: ignore[operator]


def test_changes_list_only_what_changed() -> None:
    before = {"name": "India", "tickers": ["INFY.NS"], "brief_enabled": False}
    after = {"name": "India", "tickers": ["INFY.NS", "TCS.NS"], "brief_enabled": True}
    assert fmt.changes(before, after) == [
        ("Tickers", "INFY.NS", "INFY.NS, TCS.NS"),
        ("Morning brief", "no", "yes"),
    ]
    assert fmt.changes(None, {"attempted": "x@example.test"}) == [("Attempted", "—", "x@example.test")]
    assert fmt.changes(None, None) == []
