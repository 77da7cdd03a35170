"""How much other work on the same cores slows the embedding model, at each CPU priority Linux offers.

Why it exists: ingestion's writes (the database server's inserts, this process's own statements)
run beside the model on the embedded default's two cores. ``research/ingest/cpu_share.py`` lowers
the database's priority; this measures what a lower priority can and cannot buy. A stand-in for
the writes (a process busy 3 ms, idle 1 ms: about three quarters of a core, in bursts) runs at
each priority while the model alone embeds the MPC minutes' passages in the pipeline's steps;
runs are interleaved, and the table gives each setting's median against none.

    ALPHADESK_VAR_DIR=$PWD/var/bench .venv/bin/python -m bench._contention
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

_BURSTS = (
    "import time\nwhile True:\n t = time.perf_counter()\n"
    " while time.perf_counter() - t < 0.003: pass\n time.sleep(0.001)"
)
REPEATS = int(os.environ.get("BENCH_CONTENTION_REPEATS", "3"))


# Each setting: the command the stand-in runs under, and whether it gets a session (and so a
# scheduler autogroup) of its own, set to the nice value cpu_share gives the database (19).
SETTINGS: dict[str, tuple[list[str], bool] | None] = {
    "none": None,
    "own session, autogroup nice 19 (as the database)": ([], True),
    "this session, nice 19": (["nice", "-n", "19"], False),
    "SCHED_IDLE": (["chrt", "--idle", "0"], False),  # runs only when no other thread wants the core
}


def _start(setting: str) -> subprocess.Popen[bytes] | None:
    """The stand-in for the writes, at ``setting``; None for "none"."""
    how = SETTINGS[setting]
    if how is None:
        return None
    prefix, own_session = how
    # Our own interpreter running a fixed program, under fixed system tools: no outside input.
    process = subprocess.Popen([*prefix, sys.executable, "-c", _BURSTS], start_new_session=own_session)  # noqa: S603
    if own_session:
        time.sleep(0.1)
        from research.ingest.cpu_share import YIELDING_NICE

        Path(f"/proc/{process.pid}/autogroup").write_text(str(YIELDING_NICE))
    time.sleep(0.2)
    return process


def measure(model_seconds: Callable[[], float]) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = {setting: [] for setting in SETTINGS}
    for _ in range(REPEATS):
        for setting in SETTINGS:
            process = _start(setting)
            try:
                seconds[setting].append(model_seconds())
            finally:
                if process is not None:
                    process.kill()
                    process.wait()
    return seconds


def main() -> None:
    import django

    django.setup()
    from bench._ingest_speed import _model_seconds, ingest_files
    from research.ingest.pipeline import parse_and_chunk
    from research.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    embedder.embed(["warm up the model before timing"])
    pdfs = [f for f in ingest_files() if f.name.endswith(".pdf")][:4]
    documents = [[d.text for d in parse_and_chunk("pdf", f.data)[1]] for f in pdfs]
    seconds = measure(lambda: sum(_model_seconds(embedder, texts) for texts in documents))
    base = statistics.median(seconds["none"])
    passages = sum(map(len, documents))
    print(f"| beside the model ({passages} passages, {REPEATS} interleaved runs) | model s, median | slower by |")
    print("|---|---|---|")
    for setting, runs in seconds.items():
        median = statistics.median(runs)
        print(f"| {setting} | {median:.2f} | {100 * (median / base - 1):+.1f} % |")


if __name__ == "__main__":
    main()
