"""Run every benchmark module (or those named on the command line) and write a results table."""

from __future__ import annotations

import importlib
import os
import pkgutil
import platform
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import django  # noqa: E402

django.setup()

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    return f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}"


def table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)\n"
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(selected: list[str]) -> int:
    names = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_")]
    names = [n for n in names if not selected or n in selected]
    report = [f"# AlphaDesk benchmarks\n\nMachine: {machine()}  \nRun: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"]
    for name in sorted(names):
        module = importlib.import_module(f"bench.{name}")
        if not hasattr(module, "run"):
            continue
        started = time.perf_counter()
        rows = module.run()
        section = f"\n## {name}\n\n{(module.__doc__ or '').strip()}\n\n{table(rows)}"
        section += f"\n({time.perf_counter() - started:.1f} s)\n"
        print(section, flush=True)
        report.append(section)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.md").write_text("".join(report))
    print(f"written to {RESULTS / 'latest.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
