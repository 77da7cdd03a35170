"""The architecture is executable: the import contracts in pyproject.toml, and the size limits a
newcomer can read a module within (a file of at most 400 lines, a function of at most 60)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ["core", "reviews", "portfolios", "research", "briefs", "evaluation", "mcp_bridge", "home", "config"]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60
# Settings are one flat list of env-driven values; splitting them would hide the whole picture.
FILE_SIZE_EXEMPT = {"config/settings.py"}


def _source_files() -> list[Path]:
    files = []
    for app in [*APPS, "bench", "tests"]:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                files.append(path)
    return files


def _lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python sources and the contracts, copied so a test can break them without touching
    the checkout."""
    target = tmp_path_factory.mktemp("house")
    shutil.copy(ROOT / "pyproject.toml", target)
    for app in APPS:
        shutil.copytree(ROOT / app, target / app, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def test_the_import_contracts_hold(project_copy: Path) -> None:
    result = _lint_imports(project_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout or "broken" not in result.stdout.split("Contracts:")[-1]


@pytest.mark.parametrize(
    ("module", "upward_import", "contract"),
    [
        ("core/upward_probe.py", "import briefs.models\n", "Apps import only downward BROKEN"),
        ("portfolios/upward_probe.py", "from research import calculator\n", "Apps import only downward BROKEN"),
        ("reviews/upward_probe.py", "import portfolios.models\n", "Apps import only downward BROKEN"),
        ("research/upward_probe.py", "from briefs import claims\n", "Apps import only downward BROKEN"),
        (
            "portfolios/recompute_probe.py",
            "from portfolios import metrics\n",
            None,  # allowed: only portfolios.recompute itself is forbidden from it
        ),
        (
            "research/agent/text/upward_probe.py",
            "from research.agent.question import periods\n",
            "stages import only downward BROKEN",
        ),
        (
            # An import inside a function counts: that is where the agent's circles used to hide.
            "research/agent/question/upward_probe.py",
            "def later():\n    from research.agent.compose import docs\n\n    return docs\n",
            "stages import only downward BROKEN",
        ),
        (
            "research/retrieval/probe.py",
            "from research.chat import services\n",
            "knows nothing of the chat or its agent BROKEN",
        ),
    ],
)
def test_an_upward_import_breaks_the_lint(
    project_copy: Path, module: str, upward_import: str, contract: str | None
) -> None:
    probe = project_copy / module
    probe.write_text(upward_import)
    try:
        result = _lint_imports(project_copy)
    finally:
        probe.unlink()
    if contract is None:
        assert result.returncode == 0, result.stdout
    else:
        assert result.returncode != 0
        assert contract in result.stdout, result.stdout


def test_the_recompute_may_not_borrow_the_maths_it_checks(project_copy: Path) -> None:
    recompute = project_copy / "portfolios" / "recompute.py"
    original = recompute.read_text()
    recompute.write_text(original + "\nfrom portfolios.metrics import volatility  # noqa\n")
    try:
        result = _lint_imports(project_copy)
    finally:
        recompute.write_text(original)
    assert result.returncode != 0
    assert "shares no code with the maths it checks BROKEN" in result.stdout


def _function_lengths(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
    return [
        (node.end_lineno - node.lineno + 1, f"{path.relative_to(root)}:{node.lineno} {node.name}")
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None
    ]


def test_no_module_is_over_400_lines() -> None:
    too_long = {
        str(path.relative_to(ROOT)): n
        for path in _source_files()
        if (n := len(path.read_text().splitlines())) > MAX_FILE_LINES
        and str(path.relative_to(ROOT)) not in FILE_SIZE_EXEMPT
    }
    assert too_long == {}


def test_no_function_is_over_60_lines() -> None:
    lengths = [entry for path in _source_files() for entry in _function_lengths(path)]
    too_long = sorted((n, where) for n, where in lengths if n > MAX_FUNCTION_LINES)
    assert too_long == []


def test_the_size_check_counts_what_it_says(tmp_path: Path) -> None:
    # A control for the two checks above: a 61-line function is caught, a 60-line one is not.
    body = "\n".join(f"    x{i} = {i}" for i in range(59))
    (tmp_path / "sample.py").write_text(f"def ok():\n{body}\n\n\ndef long():\n{body}\n    x = 0\n")
    lengths = {name.split()[-1]: n for n, name in _function_lengths(tmp_path / "sample.py", tmp_path)}
    assert lengths == {"ok": 60, "long": 61}
