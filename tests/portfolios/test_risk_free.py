"""Risk-free rate by currency (settings), overridable per portfolio, shown with its origin; the two
total returns on the portfolio page carry their date ranges."""

from __future__ import annotations

import re
from typing import Any

import pytest

from portfolios.selectors import portfolio_analysis
from portfolios.services import portfolio_create, portfolio_update

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_default_rate_follows_the_main_currency(analyst: Any) -> None:
    india, _ = portfolio_create(user=analyst, name="India", holdings=[("INFY.NS", 0.7), ("AAPL", 0.3)])
    us, _ = portfolio_create(user=analyst, name="US", holdings=[("INFY.NS", 0.3), ("AAPL", 0.7)])
    a = portfolio_analysis(user=analyst, portfolio_id=india.pk)
    b = portfolio_analysis(user=analyst, portfolio_id=us.pk)
    assert (a.risk_free_rate, a.risk_free_currency, a.risk_free_source) == (0.055, "INR", "default for INR")
    assert (b.risk_free_rate, b.risk_free_currency) == (0.04, "USD")


def test_a_portfolio_overrides_the_rate_and_sharpe_moves(client: Any, analyst: Any) -> None:
    portfolio, _ = portfolio_create(user=analyst, name="Core", holdings=[("RELIANCE.NS", 0.5), ("INFY.NS", 0.5)])
    default = portfolio_analysis(user=analyst, portfolio_id=portfolio.pk)
    client.force_login(analyst)
    form = {"name": "Core", "holdings": "RELIANCE.NS 0.5\nINFY.NS 0.5", "risk_free_rate": "7"}
    assert client.post(f"/portfolios/{portfolio.pk}/edit/", form).status_code == 302
    portfolio.refresh_from_db()
    assert portfolio.risk_free_rate == pytest.approx(0.07)
    custom = portfolio_analysis(user=analyst, portfolio_id=portfolio.pk)
    assert custom.risk_free_source == "set on this portfolio"
    assert custom.sharpe is not None and default.sharpe is not None and custom.sharpe < default.sharpe
    assert custom.total_return == default.total_return  # returns do not depend on rf
    page = _text(client.get(f"/portfolios/{portfolio.pk}/").content.decode())
    assert "Risk-free rate for Sharpe and Sortino: 7.00% a year (set on this portfolio)" in page
    portfolio_update(user=analyst, portfolio_id=portfolio.pk, risk_free_rate=None)  # back to the default
    assert portfolio_analysis(user=analyst, portfolio_id=portfolio.pk).risk_free_rate == 0.055


def test_out_of_range_rate_is_a_form_error_and_keeps_the_saved_one(client: Any, analyst: Any) -> None:
    portfolio, _ = portfolio_create(user=analyst, name="Core", holdings=[("INFY.NS", 1)], risk_free_rate=0.06)
    client.force_login(analyst)
    response = client.post(
        f"/portfolios/{portfolio.pk}/edit/", {"name": "Core", "holdings": "INFY.NS 1", "risk_free_rate": "80"}
    )
    assert response.status_code == 400 and "between −5 % and 50 %" in response.content.decode()
    portfolio.refresh_from_db()
    assert portfolio.risk_free_rate == 0.06


def test_both_total_returns_say_which_dates_they_cover(client: Any, analyst: Any) -> None:
    portfolio, _ = portfolio_create(user=analyst, name="Core", holdings=[("RELIANCE.NS", 0.5), ("INFY.NS", 0.5)])
    analysis = portfolio_analysis(user=analyst, portfolio_id=portfolio.pk)
    assert analysis.benchmark is not None and analysis.benchmark.start and analysis.benchmark.end
    client.force_login(analyst)
    html = client.get(f"/portfolios/{portfolio.pk}/").content.decode()
    own = _text(html.split('data-testid="total-return-range"')[1].split("</div>")[0])
    assert f"{analysis.start:%-d %b %Y} → {analysis.end:%-d %b %Y}" in own
    bench = _text(html.split('data-testid="benchmark-range"')[1].split("</div>")[0])
    assert f"{analysis.benchmark.start:%-d %b %Y} → {analysis.benchmark.end:%-d %b %Y}" in bench


def test_the_chat_verifier_resolves_the_same_rate_on_its_own(analyst: Any) -> None:
    """A saved portfolio with its own rate: the tool's Sharpe verifies; the same output claiming the
    Sharpe of another rate does not (the verifier never reads the rate from the output)."""
    import copy

    from core.tools import call_tool
    from research.agent.verify.claims import verify_answer

    portfolio, _ = portfolio_create(
        user=analyst, name="Core", holdings=[("RELIANCE.NS", 0.5), ("INFY.NS", 0.5)], risk_free_rate=0.08
    )
    outcome = call_tool("analyze_portfolio", {"portfolio_id": portfolio.pk}, user=analyst)
    assert outcome.ok
    outputs = {"portfolio_analyzer:0": outcome.as_dict()}
    value = outputs["portfolio_analyzer:0"]["sharpe"]
    claim = {"id": "c1", "kind": "tool", "result_key": "portfolio_analyzer:0", "path": ["sharpe"]}
    claim |= {"value": value, "label": "Sharpe", "display": f"{value:.2f}"}

    def verify(claims: list[dict[str, Any]], outs: dict[str, Any]) -> str:
        return str(verify_answer("[[c1]]", claims, question="q", outputs=outs, chunk_texts={}, citations=[])["status"])

    assert verify([claim], outputs) == "verified"
    lied = copy.deepcopy(outputs)
    lied["portfolio_analyzer:0"]["risk_free_rate"] = 0.0  # a tampered rate in the output changes nothing
    assert verify([dict(claim)], lied) == "verified"
    portfolio_update(user=analyst, portfolio_id=portfolio.pk, risk_free_rate=0.02)
    assert verify([dict(claim)], outputs) == "failed"


def test_the_api_sets_shows_and_clears_the_override_and_refuses_nonsense(client: Any, analyst: Any) -> None:
    client.force_login(analyst)
    body = {"name": "Core", "holdings": [{"ticker": "INFY.NS", "weight": 1}], "risk_free_rate": 0.065}
    created = client.post("/api/v1/portfolios", body, content_type="application/json")
    assert created.status_code == 201 and created.json()["risk_free_rate"] == 0.065
    pid = created.json()["id"]
    analysis = client.get(f"/api/v1/portfolios/{pid}/analysis").json()
    assert (analysis["risk_free_rate"], analysis["risk_free_source"]) == (0.065, "set on this portfolio")
    # A rename leaves the rate alone; a rate of 80 % a year is refused and the saved one kept.
    renamed = client.patch(f"/api/v1/portfolios/{pid}", {"name": "Core 2"}, content_type="application/json")
    assert renamed.json()["risk_free_rate"] == 0.065
    refused = client.patch(f"/api/v1/portfolios/{pid}", {"risk_free_rate": 0.8}, content_type="application/json")
    assert refused.status_code == 400 and "between −5 % and 50 %" in str(refused.json())
    words = client.patch(f"/api/v1/portfolios/{pid}", {"risk_free_rate": "lots"}, content_type="application/json")
    assert words.status_code == 400 and "risk_free_rate" in str(words.json())
    assert client.get(f"/api/v1/portfolios/{pid}").json()["risk_free_rate"] == 0.065
    cleared = client.patch(f"/api/v1/portfolios/{pid}", {"risk_free_rate": None}, content_type="application/json")
    assert cleared.status_code == 200 and cleared.json()["risk_free_rate"] is None
    analysis = client.get(f"/api/v1/portfolios/{pid}/analysis").json()
    assert (analysis["risk_free_rate"], analysis["risk_free_source"]) == (0.055, "default for INR")
