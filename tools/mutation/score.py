"""The mutation score per module from mutmut's results, counting only killable mutants.

Reads ``mutmut results --all true`` (run from the project root after ``mutmut run``) and the list
of equivalent mutants in ``tools/mutation/equivalent.toml`` (each with the reason no test can kill
it). Prints a Markdown table; exits 1 when a module is under the target (90 %) or when a listed
equivalent no longer exists (the code moved: review the list).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

TARGET = 0.90
HERE = Path(__file__).resolve().parent
CAUGHT = {"killed", "timeout", "caught by type check"}


def module_of(mutant: str) -> str:
    """``briefs.render.x_substitute__mutmut_3`` → ``briefs.render`` (methods: ``.xǁClassǁname``)."""
    return mutant.rsplit(".x", 1)[0]


def results() -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"], capture_output=True, text=True, check=True
    ).stdout
    pairs = (line.strip().rsplit(": ", 1) for line in out.splitlines() if ": " in line)
    return {name: status for name, status in pairs}


def main() -> int:
    equivalent = {m["name"]: m["reason"] for m in tomllib.loads((HERE / "equivalent.toml").read_text())["mutant"]}
    status = results()
    stale = sorted(set(equivalent) - set(status))
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    for name, state in status.items():
        by_module[module_of(name)]["equivalent" if name in equivalent else state] += 1
    print("| module | mutants | equivalent | killable | killed | survived or untested | not run | score |")
    print("|---|---|---|---|---|---|---|---|")
    failing = []
    for module, counts in sorted(by_module.items()):
        total = sum(counts.values())
        # "no tests": no selected test reaches the function — counted as not killed, not left out.
        unchecked = counts["not checked"] + counts["skipped"]
        killable = total - counts["equivalent"] - unchecked
        killed = sum(counts[s] for s in CAUGHT)
        score = killed / killable if killable else 0.0
        shown = f"{score:.0%}" if killable else "—"
        print(f"| `{module}` | {total} | {counts['equivalent']} | {killable} | {killed} | "
              f"{counts['survived'] + counts['no tests']} | {unchecked} | {shown} |")  # fmt: skip
        if killable and score < TARGET:
            failing.append(module)
    if stale:
        print(f"\nListed as equivalent but not found (review tools/mutation/equivalent.toml): {', '.join(stale)}")
    if failing:
        print(f"\nUnder {TARGET:.0%}: {', '.join(failing)}")
    return 1 if failing or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
