"""Finding 2: numbers no input may turn into a 5xx or an ``internal_error``.

The reproductions first (weights of 1e308 through the API, the form, analyze and MCP; a 500-digit
number in the calculator), then hypothesis over the same four doors with finite, infinite, NaN,
huge-integer and long-digit-string weights and expressions."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.tools import call_tool
from mcp_bridge.services import mcp_tool_call
from portfolios.models import Portfolio

# transaction=True: mcp_tool_call closes its connection as a request would, which an atomic test forbids.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]  # hypothesis sweeps over four entry points
HYPOTHESIS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], database=None
)

weights = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e300, max_value=1.7e308),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.text(alphabet="0123456789.eE+-", min_size=1, max_size=600),
    st.sampled_from(["1e308", "9" * 500, "-0", "1e-320", "0x10", "٣", "Infinity", "NaN", "1_000"]),
    st.none(),
)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _api_post(client: Client, path: str, body: dict[str, Any]) -> Any:
    # allow_nan: the attacker's JSON may carry NaN/Infinity tokens; the server must refuse them cleanly.
    return client.post(path, json.dumps(body, allow_nan=True, default=str), content_type="application/json")


def _assert_no_server_error(response: Any) -> None:
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400 and response["Content-Type"].startswith("application/json"):
        assert response.json().get("error") != "internal_error", response.json()


# --- the reproductions ------------------------------------------------------------------------
def test_weights_of_1e308_are_a_clear_400_everywhere(analyst: Any) -> None:
    client = _client(analyst)
    holdings = [{"ticker": "INFY", "weight": 1e308}, {"ticker": "TCS", "weight": 1e308}]
    created = _api_post(client, "/api/v1/portfolios", {"name": "Big", "holdings": holdings})
    assert created.status_code == 400 and "too large" in json.dumps(created.json())
    analyzed = _api_post(client, "/api/v1/market/analyze", {"tickers": ["INFY", "TCS"], "weights": [1e308, 1e308]})
    assert analyzed.status_code == 400 and analyzed.json()["error"] == "invalid_input"
    form = client.post("/portfolios/new/", {"name": "Big", "holdings": "INFY 1e308\nTCS 1e308\n"})
    assert form.status_code == 400 and "too large" in form.content.decode()
    mcp = mcp_tool_call(
        user=analyst,
        name="analyze_portfolio",
        arguments={"tickers": ["INFY", "TCS"], "weights": [1e308, 1e308]},
        transport="http",
    )
    assert mcp.error is not None and mcp.error.error == "invalid_input" and "too large" in mcp.error.message
    assert not Portfolio.objects.exists()


def test_a_500_digit_number_in_the_calculator_is_refused_clearly(analyst: Any) -> None:
    outcome = call_tool("calculate_financial_metric", {"expression": "9" * 500}, user=analyst)
    assert outcome.error is not None and outcome.error.error == "invalid_expression"
    assert "more than 30 digits" in outcome.error.message
    big_int = call_tool("calculate_financial_metric", {"expression": "1" + "0" * 29 + " * 10"}, user=analyst)
    assert big_int.error is not None and big_int.error.error == "invalid_expression"


def test_sane_weights_still_work(analyst: Any) -> None:
    """The guards refuse only what is absurd: 40 % / 60 % analyses as before."""
    outcome = call_tool("analyze_portfolio", {"tickers": ["INFY", "TCS"], "weights": [0.4, 0.6]}, user=analyst)
    assert outcome.ok, outcome.error
    assert math.isfinite(outcome.output.annualised_return)  # type: ignore[union-attr]


# --- properties -------------------------------------------------------------------------------
@HYPOTHESIS
@given(a=weights, b=weights)
def test_portfolio_api_never_5xx(analyst: Any, a: Any, b: Any) -> None:
    body = {
        "name": "H",
        "normalise": True,
        "holdings": [{"ticker": "INFY", "weight": a}, {"ticker": "TCS", "weight": b}],
    }
    _assert_no_server_error(_api_post(_client(analyst), "/api/v1/portfolios", body))
    Portfolio.objects.all().delete()


@HYPOTHESIS
@given(a=weights, b=weights)
def test_analyze_api_never_5xx(analyst: Any, a: Any, b: Any) -> None:
    body = {"tickers": ["INFY", "TCS"], "weights": [a, b]}
    _assert_no_server_error(_api_post(_client(analyst), "/api/v1/market/analyze", body))


@HYPOTHESIS
@given(a=weights, b=weights)
def test_portfolio_form_never_5xx(analyst: Any, a: Any, b: Any) -> None:
    response = _client(analyst).post(
        "/portfolios/new/", {"name": "H", "holdings": f"INFY {a}\nTCS {b}\n", "normalise": "on"}
    )
    assert response.status_code in {302, 400}, response.status_code
    Portfolio.objects.all().delete()


@HYPOTHESIS
@given(a=weights, b=weights)
def test_mcp_analyze_never_internal_error(analyst: Any, a: Any, b: Any) -> None:
    arguments = {"tickers": ["INFY", "TCS"], "weights": [a, b]}
    outcome = mcp_tool_call(user=analyst, name="analyze_portfolio", arguments=arguments, transport="http")
    assert outcome.error is None or outcome.error.error != "internal_error", outcome.error


expressions = st.one_of(
    st.text(max_size=600),
    st.builds(lambda d: d, st.text(alphabet="0123456789", min_size=1, max_size=600)),
    st.builds(
        lambda x, op, y: f"{x} {op} {y}",
        st.one_of(st.floats(allow_nan=False), st.integers(min_value=-(10**60), max_value=10**60)),
        st.sampled_from(["+", "-", "*", "/", "**", "%", "^"]),
        st.one_of(st.floats(allow_nan=False), st.integers(min_value=-(10**60), max_value=10**60)),
    ),
    st.builds(
        lambda f, x, y: f"{f}({x}, {y})",
        st.sampled_from(["pct_change", "cagr", "ratio", "round", "mean", "sqrt", "max"]),
        st.floats(),
        st.floats(),
    ),
    st.sampled_from(["(" * 250 + "1" + ")" * 250, "-" * 499 + "1", "1\x00", "1e308*10", "10**100**100", "9" * 4400]),
)


@HYPOTHESIS
@given(expression=expressions)
def test_calculator_never_internal_error(analyst: Any, expression: str) -> None:
    outcome = call_tool("calculate_financial_metric", {"expression": expression}, user=analyst)
    assert outcome.error is None or outcome.error.error in {"invalid_expression", "invalid_input"}, outcome.error
    if outcome.output is not None:
        assert math.isfinite(outcome.output.result)  # type: ignore[attr-defined]
