"""Market-data and portfolio figures in chat answers are recomputed from the raw daily bars by
briefs/recompute.py (an implementation that shares no code with the tool maths) before they are
shown as verified; a figure with no independent recompute says it was only re-read from the output.

Expected prices are read straight from the shipped CSVs (data/market/bars), not from our code."""

from __future__ import annotations

import copy
import csv
from pathlib import Path
from typing import Any

import pytest

from core.tools import call_tool
from research.agent.verify.claims import check_claim, verify_answer

pytestmark = pytest.mark.django_db

BARS = Path(__file__).resolve().parents[3] / "data" / "market" / "bars"


def _csv_closes(symbol: str) -> list[tuple[str, float]]:
    with (BARS / f"{symbol}.csv").open(newline="") as fh:
        return [(r["date"], float(r["close"])) for r in csv.DictReader(fh) if r["close"]]


def _market_result(analyst: Any, tool: str, **args: Any) -> dict[str, Any]:
    outcome = call_tool(tool, args, user=analyst)
    assert outcome.ok, outcome.as_dict()
    return {"calls": [{"tool": tool, **outcome.as_dict()}], "errors": []}


def _claim(cid: str, key: str, path: list[Any], outputs: dict[str, Any]) -> dict[str, Any]:
    value: Any = outputs[key]
    for step in path:
        value = value[step]
    return {"id": cid, "kind": "tool", "result_key": key, "path": path, "value": value, "label": cid, "display": "x"}


def _verify(claims: list[dict[str, Any]], outputs: dict[str, Any]) -> dict[str, Any]:
    template = " ".join(f"[[{c['id']}]]" for c in claims)
    return verify_answer(template, claims, question="q", outputs=outputs, chunk_texts={}, citations=[])


def test_quote_claims_are_recomputed_from_the_bars_and_a_cent_is_caught(analyst: Any) -> None:
    outputs = {"market_data:0": _market_result(analyst, "get_stock_quote", ticker="INFY.NS")}
    (last_date, last), (_, prev) = _csv_closes("INFY.NS")[-1], _csv_closes("INFY.NS")[-2]
    claims = [
        _claim("c1", "market_data:0", ["calls", 0, "last_close"], outputs),
        _claim("c2", "market_data:0", ["calls", 0, "change_1d_pct"], outputs),
    ]
    assert claims[0]["value"] == pytest.approx(last, abs=1e-9)
    assert claims[1]["value"] == pytest.approx((last / prev - 1) * 100, rel=1e-12)
    result = _verify(claims, outputs)
    assert result["status"] == "verified", result["problems"]
    assert [c["recompute"] for c in result["claims"]] == ["bars", "bars"]
    assert result["claims"][0]["recomputed"] == pytest.approx(last, abs=1e-9)

    # Tamper: one cent more in the stored output AND in the claim, so re-reading the path agrees...
    tampered = copy.deepcopy(outputs)
    tampered["market_data:0"]["calls"][0]["last_close"] += 0.01
    bad = _claim("c1", "market_data:0", ["calls", 0, "last_close"], tampered)
    assert bad["value"] == pytest.approx(last + 0.01)
    # ...the old check (the value at the path equals the claim) would pass; the recompute does not.
    result = _verify([bad], tampered)
    assert result["status"] == "failed"
    assert len(result["problems"]) == 1 and result["problems"][0].startswith("c1: recomputed from the bars")
    assert last_date == str(outputs["market_data:0"]["calls"][0]["as_of"])[:10]


def test_metric_claims_are_recomputed_and_a_tampered_volatility_is_caught(analyst: Any) -> None:
    outputs = {"market_data:0": _market_result(analyst, "compute_metrics", ticker="TCS.NS")}
    fields = ["last_close", "return_30d_pct", "volatility_annualised_pct", "max_drawdown_pct", "high_52w", "low_52w"]
    claims = [_claim(f"c{i + 1}", "market_data:0", ["calls", 0, f], outputs) for i, f in enumerate(fields)]
    result = _verify(claims, outputs)
    assert result["status"] == "verified", result["problems"]
    assert {c["recompute"] for c in result["claims"]} == {"bars"}
    tampered = copy.deepcopy(outputs)
    tampered["market_data:0"]["calls"][0]["volatility_annualised_pct"] += 0.01
    result = _verify([_claim("c3", "market_data:0", ["calls", 0, "volatility_annualised_pct"], tampered)], tampered)
    assert result["status"] == "failed" and "recomputed from the bars" in result["problems"][0]


def test_price_history_closes_are_checked_against_the_cache(analyst: Any) -> None:
    outputs = {"market_data:0": _market_result(analyst, "get_price_history", ticker="HDFCBANK.NS")}
    bars = outputs["market_data:0"]["calls"][0]["bars"]
    claim = _claim("c1", "market_data:0", ["calls", 0, "bars", len(bars) - 1, "close"], outputs)
    assert claim["value"] == pytest.approx(_csv_closes("HDFCBANK.NS")[-1][1], abs=1e-9)
    assert _verify([claim], outputs)["claims"][0]["recompute"] == "bars"
    bars[0]["close"] -= 0.01
    bad = _claim("c2", "market_data:0", ["calls", 0, "bars", 0, "close"], outputs)
    assert check_claim(bad, outputs, {}) is not None and bad["recompute"] == "bars"


def test_portfolio_claims_are_recomputed_and_tampering_is_caught(analyst: Any) -> None:
    outcome = call_tool(
        "analyze_portfolio", {"tickers": ["INFY.NS", "TCS.NS", "HDFCBANK.NS"], "weights": [0.4, 0.3, 0.3]}, user=analyst
    )
    assert outcome.ok
    outputs = {"portfolio_analyzer:0": outcome.as_dict()}
    fields = ["annualised_return", "annualised_volatility", "sharpe", "max_drawdown"]
    claims = [_claim(f"c{i + 1}", "portfolio_analyzer:0", [f], outputs) for i, f in enumerate(fields)]
    result = _verify(claims, outputs)
    assert result["status"] == "verified", result["problems"]
    assert [c["recompute"] for c in result["claims"]] == ["bars"] * 4
    for field in fields:
        tampered = copy.deepcopy(outputs)
        tampered["portfolio_analyzer:0"][field] += 0.0001  # a hundredth of a percentage point
        result = _verify([_claim("c1", "portfolio_analyzer:0", [field], tampered)], tampered)
        assert result["status"] == "failed" and "recomputed from the bars" in result["problems"][0], field


def test_fundamentals_are_labelled_output_only(analyst: Any) -> None:
    outputs = {"market_data:0": _market_result(analyst, "get_fundamentals", ticker="AAPL")}
    claim = _claim("c1", "market_data:0", ["calls", 0, "trailing_pe"], outputs)
    result = _verify([claim], outputs)
    assert result["status"] == "verified"
    assert result["claims"] == [{"id": "c1", "recompute": "output_only", "recomputed": None}]


def test_chat_turns_show_how_each_figure_was_checked(ask: Any, client: Any, analyst: Any) -> None:
    quote = ask("What is the price of INFY?")
    assert quote.status == "done" and quote.verification["status"] == "verified"
    tool_claims = [c for c in quote.claims if c["kind"] == "tool"]
    assert tool_claims and all(c["recompute"] == "bars" and c["verified"] for c in tool_claims)
    last = next(c for c in tool_claims if c["path"][-1] == "last_close")
    assert last["recomputed"] == pytest.approx(_csv_closes("INFY.NS")[-1][1], abs=1e-9)
    step = quote.steps.get(node="final_answer")
    assert {c["recompute"] for c in step.outputs["verification"]["claims"]} == {"bars"}

    portfolio = ask("Analyse a portfolio of 40% INFY, 30% TCS and 30% HDFCBANK")
    assert portfolio.status == "done", portfolio.verification
    # Every figure is recomputed from the closes but the holdings' weights, the portfolio's own definition.
    checked = {c["recompute"] for c in portfolio.claims if c["kind"] == "tool" and c["path"][-1] != "weight"}
    assert checked == {"bars"}
    assert {c["recompute"] for c in portfolio.claims if c["kind"] == "tool" and c["path"][-1] == "weight"} == {
        "output_only"
    }

    fundamentals = ask("What is the P/E ratio of AAPL?")
    checks = fundamentals.steps.get(node="final_answer").outputs["verification"]["claims"]
    assert checks and {c["recompute"] for c in checks} == {"output_only"}

    client.force_login(analyst)
    page = client.get(f"/research/chat/{quote.conversation_id}/").content.decode()
    assert "recomputed from daily bars" in page
    page = client.get(f"/research/chat/{fundamentals.conversation_id}/").content.decode()
    assert "output check only" in page
