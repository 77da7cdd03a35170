"""briefs/recompute.py (the verifier's maths) agrees with portfolios/metrics.py (the tool maths)
on every real price series shipped with the project, and both match hand-checked values."""

from __future__ import annotations

import csv
import datetime as dt
import math
from pathlib import Path

import numpy as np
import pytest

from briefs import recompute
from portfolios import metrics

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
