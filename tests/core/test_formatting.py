"""The shared formatting layer against hand-written expectations (the house convention in
core/formatting.py): U+2212 minus, two-decimal percentages with no space, currency symbols, indices
in points, abbreviated large numbers, readable dates, human metric labels."""

from __future__ import annotations

import datetime as dt
import math
import re
import zoneinfo

import pytest
from django.template import Context, Template

from core import formatting as f

M = "\u2212"


@pytest.mark.parametrize(
    ("value", "signed", "expected"),
    [
        (-0.6410256410256387, True, f"{M}0.64%"),
        (-0.6410256410256387, False, f"{M}0.64%"),
        (1.5, True, "+1.50%"),
        (1.5, False, "1.50%"),
        (24.104, False, "24.10%"),
        (0.004, True, "0.00%"),  # rounds to zero: no sign, never −0.00%
        (-0.004, True, "0.00%"),
        (1234.5678, True, "+1,234.57%"),
        (None, True, "—"),
        (math.nan, True, "—"),
        (math.inf, False, "—"),
    ],
)
def test_percent(value: float | None, signed: bool, expected: str) -> None:
    assert f.percent(value, signed=signed) == expected


def test_fraction_percent() -> None:
    assert f.fraction_percent(0.125) == "12.50%"
    assert f.fraction_percent(-0.0815, signed=True) == f"{M}8.15%"
    assert f.fraction_percent(0.3, signed=True) == "+30.00%"
    assert f.fraction_percent("x") == "—"


@pytest.mark.parametrize(
    ("value", "currency", "kind", "expected"),
    [
        (24363.3, "INR", "index", "24,363.30 pts"),  # ^NSEI: an index is in points, never "INR"
        (1376.9000244140625, "INR", "equity", "₹1,376.90"),
        (189.2, "USD", "", "$189.20"),
        (99.999, "EUR", "", "€100.00"),
        (12.3, "CHF", "", "CHF 12.30"),
        (152.6, "JPY", "", "¥153"),
        (1234.5, "", "", "1,234.50"),
        (-5.0, "USD", "", f"{M}$5.00"),
        (None, "INR", "", "—"),
    ],
)
def test_price(value: float | None, currency: str, kind: str, expected: str) -> None:
    assert f.price(value, currency, kind) == expected


def test_points_and_price_unit() -> None:
    assert f.points(24363.3) == "24,363.30 pts"
    assert f.price_unit("INR", "index") == "pts" and f.price_unit("inr", "equity") == "INR"
    assert f.price(24363.3, "pts") == "24,363.30 pts"  # a unit of "pts" is an index level


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0"),
        (950, "950"),
        (12.34, "12.3"),
        (1234, "1.2K"),
        (99_949, "99.9K"),
        (999_950, "1.0M"),
        (12_345_678, "12.3M"),
        (123_456_789, "123M"),
        (4_500_000_000, "4.5B"),
        (2.1e12, "2.1T"),
        (-1_500_000, f"{M}1.5M"),
        (None, "—"),
    ],
)
def test_compact(value: float | None, expected: str) -> None:
    assert f.compact(value) == expected


def test_money_ratio_number() -> None:
    assert f.money_compact(2.9e12, "USD") == "$2.9T"
    assert f.money_compact(17_230_000_000_000, "INR") == "₹17.2T"
    assert f.money_compact(5e9, "CHF") == "CHF 5.0B"
    assert f.ratio(14.234) == "14.23×"
    assert f.format_number(-1234.567) == f"{M}1,234.57"
    assert f.format_number(3, 0) == "3"


def test_dates_and_durations() -> None:
    assert f.format_date(dt.date(2025, 9, 30)) == "30 Sep 2025"
    assert f.format_date("2025-04-03") == "3 Apr 2025"
    assert f.format_date(dt.datetime(2025, 4, 3, 22, 41)) == "3 Apr 2025"
    assert f.format_date("not a date") == "—" and f.format_date(None) == "—"
    utc = dt.datetime(2025, 4, 3, 17, 11, 45, tzinfo=dt.UTC)
    assert f.format_datetime(utc, zoneinfo.ZoneInfo("Asia/Kolkata")) == "3 Apr 2025, 22:41"
    assert f.duration_ms(0.42) == "0.4 ms"
    assert f.duration_ms(12.3) == "12 ms"
    assert f.duration_ms(1240) == "1.24 s"
    assert f.duration_ms(125_000) == "2 min 5 s"


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("return_30d_pct", "30-day return"),
        ("change_1d_pct", "1-day change"),
        ("volatility_annualised_pct", "annualised volatility"),
        ("max_drawdown_pct", "maximum drawdown"),
        ("high_52w", "52-week high"),
        ("trailing_pe", "trailing P/E"),
        ("volume_20d_avg", "volume 20-day avg"),  # unknown keys are humanised, never shown raw
    ],
)
def test_metric_label(key: str, label: str) -> None:
    assert f.metric_label(key) == label
    assert "_" not in f.metric_label(key)


def test_format_metric_fixes_the_unit_by_the_key() -> None:
    assert f.format_metric("last_close", 24363.3, unit="pts") == "24,363.30 pts"
    assert f.format_metric("last_close", 1376.9, unit="INR") == "₹1,376.90"
    assert f.format_metric("change_1d_pct", -0.6410256410256387) == f"{M}0.64%"
    assert f.format_metric("return_30d_pct", 3.2) == "+3.20%"
    assert f.format_metric("volatility_annualised_pct", 24.1) == "24.10%"
    assert f.format_metric("max_drawdown_pct", -32.456) == f"{M}32.46%"
    assert f.format_metric("total_return", 0.125) == "+12.50%"
    assert f.format_metric("market_cap", 2.9e12, currency="USD") == "$2.9T"
    assert f.format_metric("volume", 12_345_678) == "12.3M"
    assert f.format_metric("something_pct", 2) == "2.00%"
    assert f.full_precision(-0.6410256410256387) == "-0.6410256410256387"


def test_template_filters_and_figure_tag(settings: object) -> None:
    html = Template(
        "{% load figures %}{{ a|price:'pts' }}|{{ b|price:'INR' }}|{{ c|signed_pct }}|{{ c|pct }}|{{ d|compact }}|"
        "{{ e|human_date }}|{{ k|metric_label }}|{{ ms|duration }}|{{ c|sign_class }}|"
        "{% figure c 'change_1d_pct' %}|{% figure a 'last_close' unit='pts' %}"
    ).render(
        Context(
            {
                "a": 24363.3,
                "b": 1376.9,
                "c": -0.6410256410256387,
                "d": 12_345_678,
                "e": dt.date(2025, 9, 30),
                "k": "return_30d_pct",
                "ms": 12.3,
            }
        )
    )
    assert html.split("|") == [
        "24,363.30 pts",
        "₹1,376.90",
        f"{M}0.64%",
        f"{M}0.64%",
        "12.3M",
        "30 Sep 2025",
        "30-day return",
        "12 ms",
        "down",
        f'<span class="figure" title="-0.6410256410256387">{M}0.64%</span>',
        '<span class="figure" title="24363.3">24,363.30 pts</span>',
    ]
    # No output of the layer is a raw float (more than four decimals) or a snake_case key.
    assert not re.search(r"\d\.\d{5,}", re.sub(r'title="[^"]*"', "", html))


def test_scaled_money_states_an_amount_in_its_filing_scale() -> None:
    from core.formatting import scaled_money

    assert scaled_money(81797, "USD", "million") == "$81,797 million"
    assert scaled_money(-8796, "USD", "million") == "−$8,796 million"
    assert scaled_money(1609, "USD", "million", signed=True) == "+$1,609 million"
    assert scaled_money(2.82, "USD", digits=2) == "$2.82"
    assert scaled_money(None, "USD", "million") == "—"


# The currency prefix the three money formatters share (price, money_compact, scaled_money): a symbol
# for the five unambiguous codes, the upper-cased ISO code and a space for any other, nothing when
# there is no currency; the minus sign goes before the symbol. Expected strings written by hand.
@pytest.mark.parametrize(
    ("value", "currency", "expected"),
    [
        (-1234.5, "INR", f"{M}₹1,234.50"),
        (-99.999, "EUR", f"{M}€100.00"),
        (7.5, "GBP", "£7.50"),
        (-152.6, "JPY", f"{M}¥153"),
        (-12.3, "CHF", f"{M}CHF 12.30"),
        (5, "xyz", "XYZ 5.00"),  # an unknown code is shown upper-cased, never dropped
        (189.2, "usd", "$189.20"),
        (-5, "", f"{M}5.00"),
        (-0.001, "USD", "$0.00"),  # rounds to zero: no sign
    ],
)
def test_price_currency_and_sign(value: float, currency: str, expected: str) -> None:
    assert f.price(value, currency) == expected


@pytest.mark.parametrize(
    ("value", "currency", "expected"),
    [
        (-2.9e12, "USD", f"{M}$2.9T"),
        (-1234, "INR", f"{M}₹1.2K"),
        (1.5e6, "EUR", "€1.5M"),
        (-4.5e9, "GBP", f"{M}£4.5B"),
        (123_456_789, "JPY", "¥123M"),
        (-5e9, "CHF", f"{M}CHF 5.0B"),
        (1000, "abc", "ABC 1.0K"),
        (1e9, "usd", "$1.0B"),
        (950, "", "950"),
        (-950, "", f"{M}950"),
        (None, "USD", "—"),
    ],
)
def test_money_compact_currency_and_sign(value: float | None, currency: str, expected: str) -> None:
    assert f.money_compact(value, currency) == expected


@pytest.mark.parametrize(
    ("value", "currency", "scale", "digits", "signed", "expected"),
    [
        (-8796, "INR", "crore", 0, False, f"{M}₹8,796 crore"),
        (1609, "EUR", "million", 0, True, "+€1,609 million"),
        (-1609, "EUR", "million", 0, True, f"{M}€1,609 million"),
        (1_234_567, "GBP", "thousand", 0, False, "£1,234,567 thousand"),
        (1.5, "JPY", "billion", 1, False, "¥1.5 billion"),  # a filing's digits, not the yen's zero
        (12, "CHF", "million", 0, False, "CHF 12 million"),
        (-12, "xyz", "thousand", 0, False, f"{M}XYZ 12 thousand"),
        (12, "usd", "", 0, False, "$12"),
        (12, "", "million", 0, False, "12 million"),
        (-12, "", "", 0, True, f"{M}12"),
        (-1.264, "USD", "", 2, False, f"{M}$1.26"),
        (-0.4, "USD", "million", 0, False, "$0 million"),  # rounds to zero: no sign
    ],
)
def test_scaled_money_currency_and_sign(
    value: float, currency: str, scale: str, digits: int, signed: bool, expected: str
) -> None:
    assert f.scaled_money(value, currency, scale, digits=digits, signed=signed) == expected
