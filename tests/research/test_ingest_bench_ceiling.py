"""The ingestion bench's CPU accounting (bench/_ingest_speed.py): the machine's busy core-seconds
read from /proc/stat, and the ceiling they put on ingestion / model."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pytest

from bench import _ingest_speed
from bench._ingest_speed import busy_core_seconds, overlap_ceiling

# user nice system idle iowait irq softirq steal guest guest_nice
STAT = "cpu  100 20 30 400 50 6 7 8 0 0\ncpu0 50 10 15 200 25 3 3 4 0 0\nintr 12345\n"


def test_busy_time_is_user_nice_system_irq_and_softirq_of_the_first_line() -> None:
    # 100 + 20 + 30 + 6 + 7 ticks; idle, iowait and steal are not this machine's work.
    assert busy_core_seconds(STAT) == pytest.approx(163 / os.sysconf("SC_CLK_TCK"))


def test_busy_time_is_nan_where_there_is_no_proc_stat(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_ingest_speed, "PROC_STAT", tmp_path / "missing")
    assert math.isnan(busy_core_seconds())


def test_busy_time_grows_by_the_cpu_a_busy_loop_uses() -> None:
    before, cpu_before = busy_core_seconds(), time.process_time()
    while time.process_time() - cpu_before < 0.5:
        pass
    # This process alone used 0.5 core-seconds (a tick is 10 ms); other work only adds.
    assert busy_core_seconds() - before >= 0.45


def test_ceiling_is_the_model_time_over_ingestion_busy_time_spread_on_every_core() -> None:
    # 16 s of model; ingestion kept 34 core-seconds busy, so on 2 cores it takes at least 17 s.
    assert overlap_ceiling(16.0, 34.0, 2) == pytest.approx(16 / 17)
    assert overlap_ceiling(16.0, 34.0, 4) == pytest.approx(16 / 8.5)
