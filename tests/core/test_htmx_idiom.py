"""One HTMX idiom: views ask ``request.htmx`` (django-htmx's middleware), never the raw header.

Reading ``HX-Request`` by hand, a private ``_is_htmx`` helper or ``getattr(request, "htmx", ...)``
each answered the same question slightly differently (any header value vs. exactly "true");
this test keeps the project on the one spelling. Test code is exempt: clients send the header.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {"tests", "var", "node_modules", "static", "__pycache__"}

FORBIDDEN = {
    "reads the HX-Request header by hand": re.compile(r"hx-request", re.IGNORECASE),
    "reads the header from request.META": re.compile(r"META\b.*HTTP_HX_"),
    "defines a private _is_htmx": re.compile(r"\bdef\s+_is_htmx\b"),
    "probes request.htmx with getattr": re.compile(r"getattr\(\s*request\s*,\s*[\"']htmx[\"']"),
}


def _project_python_files() -> list[Path]:
    files: list[Path] = []
    pending = [ROOT]
    while pending:
        directory = pending.pop()
        for entry in directory.iterdir():
            if entry.is_dir():
                # .venv and tools/mcp-clients/node_modules are symlinks into other checkouts.
                if entry.name in SKIP_DIRS or entry.name.startswith(".") or entry.is_symlink():
                    continue
                pending.append(entry)
            elif entry.suffix == ".py":
                files.append(entry)
    return files


def test_views_detect_htmx_one_way() -> None:
    files = _project_python_files()
    scanned = {f.relative_to(ROOT).as_posix() for f in files}
    assert {"reviews/views.py", "research/chat/views.py", "portfolios/views.py"} <= scanned  # the walk reached the apps

    offences = [
        f"{path.relative_to(ROOT)}:{number}: {why}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for why, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]
    assert not offences, "use request.htmx (core.htmx.HtmxHttpRequest) instead:\n" + "\n".join(offences)
