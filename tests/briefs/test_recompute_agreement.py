"""briefs/recompute.py (the verifier's maths) agrees with portfolios/metrics.py (the tool maths)
on every real price series shipped with the project, and both match hand-checked values."""

from __future__ import annotations

import csv
import datetime as dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from portfolios import metrics, recompute

BARS = Path(__file__).resolve().parents[2] / "data" / "market" / "bars"
SERIES = sorted(BARS.glob("*.csv"))


def _load(path: Path) -> tuple[list[dt.date], list[float]]:
    with path.open(newline="") as fh:
        rows = [(dt.date.fromisoformat(r["date"]), float(r["close"])) for r in csv.DictReader(fh) if r["close"]]
    return [d for d, _ in rows], [c for _, c in rows]


def test_every_shipped_series_is_checked() -> None:
    assert len(SERIES) >= 15  # the snapshot ships 17 series; an empty glob must not pass silently


@pytest.mark.parametrize("path", SERIES, ids=[p.stem for p in SERIES])
def test_recompute_agrees_with_tool_maths(path: Path) -> None:
    dates, closes = _load(path)
    assert len(closes) > 250
    tool = metrics.ticker_metrics(dates, np.asarray(closes))
    for metric in recompute.METRIC_UNITS:
        ours = recompute.recompute(metric, dates, closes)
        theirs = tool[metric]
        assert ours is not None and theirs is not None, metric
        assert recompute.agrees(float(theirs), ours), (path.stem, metric, ours, theirs)  # type: ignore[arg-type]
        assert math.isclose(ours, float(theirs), rel_tol=1e-9, abs_tol=1e-9)  # type: ignore[arg-type]


def test_recompute_on_a_hand_checked_series() -> None:
    dates = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(5)]
    closes = [100.0, 110.0, 99.0, 120.0, 108.0]
    assert recompute.change_1d_pct(dates, closes) == pytest.approx(-10.0)
    assert recompute.max_drawdown_pct(dates, closes) == pytest.approx(-10.0)  # 110 → 99, and 120 → 108
    logs = [math.log(closes[i] / closes[i - 1]) for i in range(1, len(closes))]
    mean = sum(logs) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 3)
    assert recompute.volatility_annualised_pct(dates, closes) == pytest.approx(sd * math.sqrt(252) * 100, rel=1e-12)
    assert recompute.high_52w(dates, closes) == 120.0 and recompute.low_52w(dates, closes) == 99.0
    assert recompute.return_30d_pct(dates, closes) is None  # history does not reach back 30 days


def test_a_cent_is_a_mismatch() -> None:
    assert recompute.agrees(2935.10, 2935.10)
    assert not recompute.agrees(2935.11, 2935.10)
    assert not recompute.agrees(1.0, None)


# --- portfolios: briefs/recompute.py against portfolios/analytics.py --------------------------
def _series(path: Path) -> Any:
    from portfolios.market import Series

    dates, closes = _load(path)
    return Series(
        symbol=path.stem,
        name=path.stem,
        currency="",
        source="snapshot",
        dates=tuple(dates),
        ordinals=np.array([d.toordinal() for d in dates], dtype=np.int64),
        closes=np.asarray(closes),
    )


BY_NAME = {p.stem: p for p in SERIES}
# Indian and US holdings together (different holiday calendars: the intersection drops dates),
# uneven weights, a single holding, a late start, and every shipped series at once.
BASKETS = [
    (["INFY.NS", "TCS.NS"], [0.5, 0.5], None),
    (["RELIANCE.NS", "HDFCBANK.NS", "ITC.NS"], [0.4, 0.35, 0.25], None),
    (["AAPL", "MSFT", "INFY.NS"], [0.2, 0.3, 0.5], None),
    (["SBIN.NS"], [1.0], None),
    (["WIPRO.NS", "GOOGL", "SPY"], [0.1, 0.6, 0.3], dt.date(2024, 1, 1)),
    ([p.stem for p in SERIES], [1 / len(SERIES)] * len(SERIES), None),
]


@pytest.mark.parametrize("names,weights,start", BASKETS, ids=[",".join(b[0])[:40] for b in BASKETS])
def test_portfolio_recompute_agrees_with_analytics(names: list[str], weights: list[float], start: Any) -> None:
    from portfolios import analytics

    series = [_series(BY_NAME[n]) for n in names]
    rf = 0.065
    tool = analytics.analyse(series, weights, rf_annual=rf, start=start)
    dates, rets = recompute.portfolio_returns(
        [(list(s.dates), s.closes.tolist()) for s in series], weights, start=start, end=tool.end
    )
    assert dates[0] == tool.start and dates[-1] == tool.end and len(rets) == tool.observations > 250
    for metric, fn in recompute.PORTFOLIO_RECOMPUTE.items():
        ours, theirs = fn(rets, rf), getattr(tool, metric)
        assert ours is not None and theirs is not None, metric
        assert recompute.agrees(float(theirs), ours), (names, metric, ours, theirs)


def test_portfolio_recompute_on_a_hand_checked_basket() -> None:
    d = [dt.date(2024, 1, day) for day in (1, 2, 3, 4)]
    # B has no bar on the 3rd, so only the 1st, 2nd and 4th are common.
    a = (d, [100.0, 110.0, 99.0, 121.0])
    b = ([d[0], d[1], d[3]], [50.0, 50.0, 40.0])
    dates, rets = recompute.portfolio_returns([a, b], [0.5, 0.5])
    assert dates == [d[0], d[1], d[3]]
    # 1st→2nd: A +10 %, B 0 % → +5 %; 2nd→4th: A 110→121 +10 %, B −20 % → −5 %.
    assert rets == pytest.approx([0.05, -0.05], abs=1e-15)
    assert recompute.portfolio_total_return(rets, 0.0) == pytest.approx(1.05 * 0.95 - 1)
    assert recompute.portfolio_max_drawdown(rets, 0.0) == pytest.approx(-0.05)
    assert recompute.portfolio_annualised_return(rets, 0.0) == pytest.approx(0.9975**126 - 1)
    assert recompute.portfolio_annualised_volatility(rets, 0.0) == pytest.approx(
        math.sqrt(0.005) * math.sqrt(252)  # sample variance of ±0.05 is 0.005
    )
    assert recompute.portfolio_sharpe(rets, 0.0) == pytest.approx(0.0, abs=1e-12)  # mean zero
    assert recompute.portfolio_sortino(rets, 0.0) == pytest.approx(0.0, abs=1e-12)
