"""DRF and HTML forms: create/edit/delete with audit, scoping, and bad input that saves nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from core.models import AuditEvent
from portfolios.models import Holding, Portfolio, Watchlist
from tests.conftest import TEST_PASSWORD

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=TEST_PASSWORD)
    return client


def test_api_portfolio_lifecycle_is_audited(analyst: Any) -> None:
    client = login(analyst)
    body = {"name": "Core", "holdings": [{"ticker": "infy", "weight": 0.6}, {"ticker": "TCS.NS", "weight": 0.4}]}
    created = client.post("/api/v1/portfolios", body, content_type="application/json")
    assert created.status_code == 201, created.json()
    pid = created.json()["id"]
    assert [h["ticker"] for h in created.json()["holdings"]] == ["INFY.NS", "TCS.NS"]
    patched = client.patch(
        f"/api/v1/portfolios/{pid}",
        {"holdings": [{"ticker": "INFY"}, {"ticker": "TCS"}]},
        content_type="application/json",
    )
    assert patched.status_code == 200 and patched.json()["notices"] == ["No weights given: equal weights used."]
    analysis = client.get(f"/api/v1/portfolios/{pid}/analysis?include_series=true").json()
    assert (
        analysis["source"] == "snapshot"
        and analysis["as_of"] == "2025-09-30"
        and len(analysis["series"]["growth"]) > 1000
    )
    assert client.delete(f"/api/v1/portfolios/{pid}").status_code == 204
    actions = list(
        AuditEvent.objects.filter(subject_type="portfolios.portfolio", subject_id=str(pid))
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions == ["portfolio.create", "portfolio.update", "portfolio.delete"]


@pytest.mark.parametrize(
    ("holdings", "needle"),
    [
        ([{"ticker": "INFY", "weight": -0.2}, {"ticker": "TCS", "weight": 1.2}], "negative"),
        ([{"ticker": "INFY", "weight": "NaN"}, {"ticker": "TCS", "weight": 0.5}], "valid number"),
        ([{"ticker": "INFY", "weight": 0.5}, {"ticker": "TCS", "weight": 0.3}], "add up to 0.8"),
        ([{"ticker": "INFY", "weight": 0.5}, {"ticker": "infy", "weight": 0.5}], "duplicated"),
        ([{"ticker": "INFY", "weight": 0.5}, {"ticker": "INFY.NS", "weight": 0.5}], "listed twice"),
        ([{"ticker": f"X{i}"} for i in range(500)], "500 tickers"),
        ([{"ticker": "INFY", "weight": 0.5}, {"ticker": "NOSUCHCO", "weight": 0.5}], "NOSUCHCO"),
    ],
)
def test_api_bad_holdings_are_400_and_save_nothing(analyst: Any, holdings: list[dict[str, Any]], needle: str) -> None:
    client = login(analyst)
    existing = client.post(
        "/api/v1/portfolios", {"name": "Keep", "holdings": [{"ticker": "SBIN"}]}, content_type="application/json"
    ).json()["id"]
    created = client.post("/api/v1/portfolios", {"name": "Bad", "holdings": holdings}, content_type="application/json")
    assert created.status_code == 400
    assert needle in str(created.json())
    edited = client.patch(f"/api/v1/portfolios/{existing}", {"holdings": holdings}, content_type="application/json")
    assert edited.status_code == 400
    assert list(Portfolio.objects.values_list("name", flat=True)) == ["Keep"]
    assert list(Holding.objects.values_list("ticker", "weight")) == [("SBIN.NS", 1.0)]


def test_normalise_is_explicit(analyst: Any) -> None:
    client = login(analyst)
    body = {
        "name": "N",
        "normalise": True,
        "holdings": [{"ticker": "INFY", "weight": 2}, {"ticker": "TCS", "weight": 2}],
    }
    created = client.post("/api/v1/portfolios", body, content_type="application/json").json()
    assert [h["weight"] for h in created["holdings"]] == [0.5, 0.5]
    assert "normalised" in created["notices"][0]


def test_market_api_errors_are_structured(analyst: Any) -> None:
    client = login(analyst)
    assert client.get("/api/v1/market/quote/NOSUCHCO").status_code == 404
    assert client.get("/api/v1/market/quote/NOSUCHCO").json()["error"] == "unknown_ticker"
    bad = client.get("/api/v1/market/quote/%3Cscript%3E")
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_input"
    assert client.get("/api/v1/market/history/INFY?start=2025-13-01").status_code == 400
    ok = client.get("/api/v1/market/metrics/INFY").json()
    assert ok["symbol"] == "INFY.NS" and ok["source"] == "snapshot" and ok["as_of"] == "2025-09-30"


def test_scoping_private_vs_shared(analyst: Any, make_user: Any, reviewer: Any) -> None:
    owner = login(analyst)
    private = owner.post(
        "/api/v1/portfolios", {"name": "Private", "holdings": [{"ticker": "INFY"}]}, content_type="application/json"
    ).json()["id"]
    shared = owner.post(
        "/api/v1/portfolios",
        {"name": "Shared", "shared_with_team": True, "holdings": [{"ticker": "TCS"}]},
        content_type="application/json",
    ).json()["id"]
    other = login(make_user("analyst"))
    assert [p["name"] for p in other.get("/api/v1/portfolios").json()] == ["Shared"]
    assert other.get(f"/api/v1/portfolios/{private}").status_code == 404
    assert other.get(f"/portfolios/{private}/").status_code == 404
    assert other.get(f"/portfolios/{shared}/").status_code == 200
    assert (
        other.patch(f"/api/v1/portfolios/{shared}", {"name": "Mine now"}, content_type="application/json").status_code
        == 403
    )
    assert other.delete(f"/api/v1/portfolios/{private}").status_code == 404
    assert login(reviewer).get("/api/v1/portfolios").status_code == 403
    assert Portfolio.objects.count() == 2


def test_watchlist_api_and_bad_input(analyst: Any) -> None:
    client = login(analyst)
    body = {
        "name": "AM",
        "tickers": ["reliance", "^NSEI"],
        "recipients": ["a@example.test"],
        "brief_time": "07:15",
        "brief_enabled": True,
    }
    created = client.post("/api/v1/watchlists", body, content_type="application/json")
    assert created.status_code == 201 and created.json()["tickers"] == ["RELIANCE.NS", "^NSEI"]
    for bad, field in (
        ({"tickers": ["NOSUCHCO"]}, "tickers"),
        ({"recipients": ["not-an-email"]}, "recipients"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"tickers": [f"X{i}" for i in range(500)]}, "tickers"),
    ):
        response = client.patch(f"/api/v1/watchlists/{created.json()['id']}", bad, content_type="application/json")
        assert response.status_code == 400 and field in response.json(), bad
    assert Watchlist.objects.get().tickers == ["RELIANCE.NS", "^NSEI"]
    assert AuditEvent.objects.filter(action="watchlist.create").count() == 1


def test_form_bad_weights_show_message_and_save_nothing(analyst: Any) -> None:
    client = login(analyst)
    response = client.post("/portfolios/new/", {"name": "F", "holdings": "INFY 0.5\nTCS 0.3\n"})
    assert response.status_code == 400
    assert "add up to 0.8" in response.content.decode()
    response = client.post("/portfolios/new/", {"name": "F", "holdings": "INFY -10%\nTCS 110%\n"})
    assert response.status_code == 400 and "negative" in response.content.decode()
    response = client.post("/portfolios/new/", {"name": "F", "holdings": "INFY nan\nTCS 0.5\n"})
    assert response.status_code == 400 and "finite" in response.content.decode()
    assert not Portfolio.objects.exists()
    ok = client.post("/portfolios/new/", {"name": "F", "holdings": "INFY 50%\nTCS 50%\n"})
    assert ok.status_code == 302


def test_ticker_page_states_source_and_as_of(analyst: Any) -> None:
    client = login(analyst)
    assert client.get("/portfolios/tickers/reliance/").status_code == 302
    page = client.get("/portfolios/tickers/RELIANCE.NS/").content.decode()
    assert "snapshot" in page and "30 Sep 2025" in page and "not live" in page
    assert client.get("/portfolios/tickers/NOSUCHCO/").status_code == 404
    partial = client.get("/portfolios/tickers/RELIANCE.NS/?range=1M", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="price-chart"' in partial and "<html" not in partial


def test_watchlist_form_create_and_edit(analyst: Any) -> None:
    client = login(analyst)
    bad = client.post(
        "/portfolios/watchlists/new/",
        {"name": "W", "tickers": "INFY NOSUCHCO", "timezone": "Asia/Kolkata", "brief_time": "07:30"},
    )
    assert bad.status_code == 400 and "NOSUCHCO" in bad.content.decode()
    assert not Watchlist.objects.exists()
    ok = client.post(
        "/portfolios/watchlists/new/",
        {"name": "W", "tickers": "infy, tcs ^nsei", "recipients": "a@example.test", "timezone": "Asia/Kolkata",
         "brief_time": "06:45", "brief_enabled": "on", "brief_weekdays": ["0", "2"]},
    )  # fmt: skip
    assert ok.status_code == 302
    watchlist = Watchlist.objects.get()
    assert watchlist.tickers == ["INFY.NS", "TCS.NS", "^NSEI"] and watchlist.brief_weekdays == [0, 2]
    assert watchlist.brief_time.strftime("%H:%M") == "06:45" and watchlist.brief_enabled
    page = client.get("/portfolios/").content.decode()
    assert "06:45 Asia/Kolkata" in page


def test_index_ticker_page_and_links(analyst: Any) -> None:
    client = login(analyst)
    from django.urls import reverse

    url = reverse("portfolios:ticker", args=["^NSEI"])
    page = client.get(url)
    assert page.status_code == 200 and "NIFTY 50" in page.content.decode() and "8 Aug 2025" in page.content.decode()
    assert client.get(reverse("portfolios:ticker", args=["aapl"]))["Location"] == reverse(
        "portfolios:ticker", args=["AAPL"]
    )


def test_openapi_schema_documents_market_and_portfolio_endpoints(tmp_path: Any) -> None:
    from django.core.management import call_command

    out = tmp_path / "schema.json"
    # --validate --fail-on-warn: every endpoint has a resolvable, valid OpenAPI 3.0 schema.
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", str(out))
    import json

    schema = json.loads(out.read_text())
    assert {
        "/api/v1/portfolios", "/api/v1/portfolios/{portfolio_id}", "/api/v1/portfolios/{portfolio_id}/analysis",
        "/api/v1/watchlists", "/api/v1/watchlists/{watchlist_id}", "/api/v1/market/quote/{symbol}",
        "/api/v1/market/history/{symbol}", "/api/v1/market/fundamentals/{symbol}", "/api/v1/market/metrics/{symbol}",
        "/api/v1/market/analyze",
    } <= set(schema["paths"])  # fmt: skip
    quote = schema["paths"]["/api/v1/market/quote/{symbol}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert {"source", "as_of", "last_close"} <= set(quote["schema"]["properties"])


def test_duplicate_name_and_weights_within_tolerance(analyst: Any) -> None:
    client = login(analyst)
    body = {
        "name": "Tol",
        "holdings": [{"ticker": "INFY", "weight": 0.5000004}, {"ticker": "TCS", "weight": 0.5000004}],
    }
    created = client.post("/api/v1/portfolios", body, content_type="application/json")
    assert created.status_code == 201 and created.json()["notices"] == []
    assert sum(h["weight"] for h in created.json()["holdings"]) == pytest.approx(1.0, abs=1e-15)
    again = client.post("/api/v1/portfolios", body, content_type="application/json")
    assert again.status_code == 400 and "already have one" in str(again.json()["name"])
