"""Tools through the shared registry with the offline snapshot provider: tickers, structured errors,
empty history, partial analysis, and user scoping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from core.tools import call_tool, mcp_whitelist, registry
from portfolios.models import PriceBar

pytestmark = pytest.mark.django_db


def test_registry_names() -> None:
    names = set(registry())
    assert {
        "get_stock_quote",
        "get_price_history",
        "get_returns",
        "get_fundamentals",
        "compute_metrics",
        "analyze_portfolio",
    } <= names
    assert "get_returns" not in mcp_whitelist() and "analyze_portfolio" in mcp_whitelist()


@pytest.mark.parametrize("raw", ["RELIANCE", " reliance.ns ", "Reliance"])
def test_bare_and_messy_tickers_resolve_to_nse(analyst: Any, raw: str) -> None:
    out = call_tool("get_stock_quote", {"ticker": raw}, user=analyst)
    assert out.ok, out.error
    q = out.output
    assert q.symbol == "RELIANCE.NS" and q.source == "snapshot"  # type: ignore[union-attr]
    assert str(q.as_of) == "2025-09-30" and q.last_close == 1364.0 and q.previous_close == 1372.8  # type: ignore[union-attr]


def test_index_and_us_tickers(analyst: Any) -> None:
    assert call_tool("get_stock_quote", {"ticker": "^nsei"}, user=analyst).output.as_of.isoformat() == "2025-08-08"  # type: ignore[union-attr]
    assert call_tool("get_stock_quote", {"ticker": "aapl"}, user=analyst).output.symbol == "AAPL"  # type: ignore[union-attr]


@pytest.mark.parametrize("raw", ["", "DROP TABLE;", "A" * 30, "AAPL.L", "<script>"])
def test_garbage_tickers_are_invalid_input(analyst: Any, raw: str) -> None:
    out = call_tool("get_stock_quote", {"ticker": raw}, user=analyst)
    assert out.error is not None and out.error.error == "invalid_input"
    assert out.error.message


def test_unknown_ticker(analyst: Any) -> None:
    out = call_tool("compute_metrics", {"ticker": "NOSUCHCO"}, user=analyst)
    assert out.error is not None and out.error.error == "unknown_ticker"
    assert "NOSUCHCO.NS" in out.error.message


def test_empty_history_is_no_data(analyst: Any, settings: Any, tmp_path: Path) -> None:
    (tmp_path / "bars").mkdir()
    (tmp_path / "instruments.csv").write_text(
        "symbol,name,exchange,currency,sector,kind,file\nEMPTY.NS,Empty,NSE,INR,,equity,EMPTY.NS.csv\n"
    )
    (tmp_path / "bars" / "EMPTY.NS.csv").write_text("date,open,high,low,close,volume\n")
    settings.MARKET_DATA_DIR = tmp_path
    for name in ("get_stock_quote", "compute_metrics", "get_price_history"):
        out = call_tool(name, {"ticker": "EMPTY.NS"}, user=analyst)
        assert out.error is not None and out.error.error == "no_data", (name, out.error)


def test_fundamentals_from_recorded_yahoo_and_no_data_for_nse(analyst: Any) -> None:
    aapl = call_tool("get_fundamentals", {"ticker": "AAPL"}, user=analyst).output
    assert aapl.trailing_pe == pytest.approx(38.91442) and aapl.source.startswith("snapshot")  # type: ignore[union-attr]
    out = call_tool("get_fundamentals", {"ticker": "INFY"}, user=analyst)
    assert out.error is not None and out.error.error == "no_data"


def test_cache_is_filled_once_and_shared(analyst: Any, make_user: Any) -> None:
    call_tool("get_stock_quote", {"ticker": "TCS"}, user=analyst)
    count = PriceBar.objects.filter(instrument__symbol="TCS.NS").count()
    assert count == 1241  # every shipped bar, stored once
    call_tool("get_price_history", {"ticker": "TCS.NS"}, user=make_user("analyst"))
    assert PriceBar.objects.filter(instrument__symbol="TCS.NS").count() == count


def test_returns_tool(analyst: Any) -> None:
    out = call_tool("get_returns", {"ticker": "INFY", "start": "2025-09-01", "kind": "log"}, user=analyst).output
    assert out.kind == "log" and str(out.dates[0]) > "2025-09-01" and len(out.returns) == len(out.dates)  # type: ignore[union-attr]


def test_partial_analysis_names_the_bad_ticker(analyst: Any) -> None:
    out = call_tool(
        "analyze_portfolio",
        {"tickers": ["RELIANCE", "INFY", "TCS", "BOGUS"], "weights": [0.4, 0.3, 0.2, 0.1]},
        user=analyst,
    )
    assert out.ok, out.error
    result = out.output
    assert [e.ticker for e in result.excluded] == ["BOGUS"] and result.excluded[0].error == "unknown_ticker"  # type: ignore[union-attr]
    assert [a.symbol for a in result.assets] == ["RELIANCE.NS", "INFY.NS", "TCS.NS"]  # type: ignore[union-attr]
    assert sum(a.weight for a in result.assets) == pytest.approx(1.0)  # type: ignore[union-attr]
    assert result.assets[0].weight == pytest.approx(0.4 / 0.9)  # type: ignore[union-attr]
    assert any("BOGUS" in n for n in result.notices)  # type: ignore[union-attr]
    assert result.benchmark is not None and result.benchmark.symbol == "^NSEI"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"tickers": ["INFY", "TCS"], "weights": [-0.5, 1.5]}, "negative"),
        ({"tickers": ["INFY", "TCS"], "weights": [0.5, float("nan")]}, "finite"),
        ({"tickers": ["INFY", "TCS"], "weights": [0.5, 0.6], "normalise": False}, "add up to 1.1"),
        ({"tickers": ["INFY", "infy"]}, "duplicated"),
        ({"tickers": [f"T{i}" for i in range(500)]}, "500 tickers"),
    ],
)
def test_analysis_rejects_bad_input(analyst: Any, args: dict[str, Any], needle: str) -> None:
    out = call_tool("analyze_portfolio", args, user=analyst)
    assert out.error is not None and out.error.error == "invalid_input"
    assert needle in out.error.message


def test_anonymous_is_forbidden() -> None:
    out = call_tool("get_stock_quote", {"ticker": "INFY"}, user=AnonymousUser())
    assert out.error is not None and out.error.error == "forbidden"


def test_private_portfolio_is_forbidden_to_other_analysts(analyst: Any, make_user: Any) -> None:
    from portfolios.services import portfolio_create

    portfolio, _ = portfolio_create(user=analyst, name="Mine", holdings=[("INFY", 0.5), ("TCS", 0.5)])
    other = make_user("analyst")
    out = call_tool("analyze_portfolio", {"portfolio_id": portfolio.pk}, user=other)
    assert out.error is not None and out.error.error == "forbidden"
    assert call_tool("analyze_portfolio", {"portfolio_id": portfolio.pk}, user=analyst).ok
