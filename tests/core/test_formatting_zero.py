"""A figure that rounds to zero at the precision it is shown at carries no sign — in every signed
formatter of core/formatting.py, the template filters over them and the chat's figures — while the
smallest figure that does not read zero keeps its sign. Expected strings written by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.template import Context, Template

from core import formatting as f
from research.agent.compose.composer import Composer

M = "\u2212"

CASES: list[tuple[str, Callable[[], str], str]] = [
    ("money_compact", lambda: f.money_compact(-0.01, "USD"), "$0.0"),
    ("money_compact", lambda: f.money_compact(-0.04, "CHF"), "CHF 0.0"),
    ("money_compact", lambda: f.money_compact(-0.06, "USD"), f"{M}$0.1"),  # reads 0.1: keeps its sign
    ("money_compact", lambda: f.money_compact(-0.0, "INR"), "₹0"),
    ("compact", lambda: f.compact(-0.04), "0.0"),
    ("compact", lambda: f.compact(-0.4), f"{M}0.4"),
    ("scaled_money", lambda: f.scaled_money(0.4, "USD", "million", signed=True), "$0 million"),
    ("scaled_money", lambda: f.scaled_money(-0.4, "USD", "million", signed=True), "$0 million"),
    ("scaled_money", lambda: f.scaled_money(0.6, "USD", "million", signed=True), "+$1 million"),
    ("scaled_money", lambda: f.scaled_money(0.004, "EUR", digits=2, signed=True), "€0.00"),
    ("percent", lambda: f.percent(0.004, signed=True), "0.00%"),
    ("percent", lambda: f.percent(-0.0049, signed=True), "0.00%"),
    ("percent", lambda: f.percent(0.006, signed=True), "+0.01%"),
    ("percent", lambda: f.percent(-0.006, signed=True), f"{M}0.01%"),
    ("percent", lambda: f.percent(-0.04, signed=True, digits=1), "0.0%"),
    ("percent", lambda: f.percent(-0.0, signed=True), "0.00%"),
    ("fraction_percent", lambda: f.fraction_percent(-0.00004, signed=True), "0.00%"),
    ("fraction_percent", lambda: f.fraction_percent(0.00004, signed=True), "0.00%"),
    ("format_number", lambda: f.format_number(0.004, signed=True), "0.00"),
    ("format_number", lambda: f.format_number(-0.4, 0), "0"),
    ("price", lambda: f.price(-0.4, "JPY"), "¥0"),
    ("price", lambda: f.price(-0.004, "GBP"), "£0.00"),
    ("points", lambda: f.points(-0.001), "0.00 pts"),
    ("ratio", lambda: f.ratio(-0.001), "0.00×"),
    ("usd", lambda: f.usd(-0.00004), "$0.0000"),
    ("usd", lambda: f.usd(-0.004), f"{M}$0.0040"),  # under a cent shows four decimals: not zero
    ("plain", lambda: f.plain(-0.0), "0"),
    ("plain", lambda: f.plain(-0.004), f"{M}0.004"),
    ("format_metric", lambda: f.format_metric("market_cap", -0.01, currency="USD"), "$0.0"),
    ("format_metric", lambda: f.format_metric("change_1d_pct", -0.001), "0.00%"),
    ("format_metric", lambda: f.format_metric("total_return", 0.00001), "0.00%"),
]


@pytest.mark.parametrize(("name", "shown", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_figure_that_reads_zero_has_no_sign(name: str, shown: Callable[[], str], expected: str) -> None:
    assert shown() == expected


@pytest.mark.parametrize(
    ("value", "digits", "sign"),
    [(-0.004, 2, 0), (0.004, 2, 0), (-0.006, 2, -1), (0.4, 0, 0), (0.6, 0, 1), (-0.0, 2, 0), (-1e-20, None, -1)],
)
def test_shown_sign_is_the_sign_of_the_rounded_value(value: float, digits: int | None, sign: int) -> None:
    assert f.shown_sign(value, digits) == sign


def _render(source: str, **context: Any) -> str:
    return Template("{% load figures %}" + source).render(Context(context))


def test_the_template_filters_agree_with_the_text() -> None:
    assert _render("{{ v|signed_pct }}|{{ v|sign_class }}", v=-0.004) == "0.00%|"
    assert _render("{{ v|signed_pct }}|{{ v|sign_class }}", v=-0.006) == f"{M}0.01%|down"
    assert _render("{{ v|money:'USD' }}", v=-0.01) == "$0.0"
    assert _render("{{ v|number:0 }}", v=-0.4) == "0"
    # A fraction shown as a percent is coloured by what it reads: 0.004 reads +0.40%.
    fraction = "{{ v|signed_fraction_pct }}|{{ v|sign_class:'fraction' }}"
    assert _render(fraction, v=0.004) == "+0.40%|up"
    assert _render(fraction, v=-0.004) == f"{M}0.40%|down"
    assert _render(fraction, v=-0.00004) == "0.00%|"


def test_the_chat_shows_its_plain_figures_with_the_house_sign() -> None:
    c = Composer("what is it?")
    c.tool_claim("r", ["v"], -0.001, label="beta")
    c.tool_claim("r", ["v"], -0.125, label="beta", places=3)
    c.tool_claim("r", ["v"], -0.004, label="change", unit="±%")
    c.tool_claim("r", ["v"], -0.01, label="market cap", unit="compact:USD")
    assert [claim["display"] for claim in c.claims] == ["0.00", f"{M}0.125", "0.00%", "$0.0"]
