"""The engine is generic; what one corpus knows lives in its pack (research/packs).

The words below belong to one corpus each: an institution's and its committee's names, its offices
and honorifics, its instruments, its currency's scale words, a regulator's forms, a market's index.
None of them may appear in a string of the engine's code (research/agent, research/retrieval,
research/ingest) outside research/packs/: a rule that names them there would serve that corpus
alone. Docstrings and comments may quote a corpus as an example; code may not match on it. The list
is written here, not read from the packs, so that trimming a pack cannot weaken the test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from research.packs import registry

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ("research/agent", "research/retrieval", "research/ingest")
CORPUS_WORDS = {
    "central-bank minutes (RBI)": [
        "RBI",
        "Reserve Bank",
        "MPC",
        "Monetary Policy Committee",
        "Governor",
        "Shri",
        "Smt",
        "crore",
        "lakh",
        "repo",
        "SDF",
        "MSF",
        "CRR",
        "SLR",
        "LAF",
        "liquidity adjustment facility",
        "standing deposit facility",
        "marginal standing facility",
        "withdrawal of accommodation",
        "Varma",
        "Patra",
        "Shaktikanta",
    ],
    "company filings (SEC)": ["10-K", "10-Q", "8-K", "20-F", "Securities and Exchange Commission", "registrant"],
    "market data (NSE)": ["NIFTY", "^NSEI", "Sensex", ".NS"],
}


def _pattern(words: list[str]) -> re.Pattern[str]:
    # A word stands alone: no letter or digit touches it on either side ("repo" is not in "report").
    alternation = "|".join(re.escape(word) for word in words)
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternation})(?![A-Za-z0-9])", re.I)


def code_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string in the module's code: docstrings left out, regular-expression
    escapes (``\\b``, ``\\s``) read as the gaps they stand for."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, re.sub(r"\\[A-Za-z]", " ", node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def corpus_words_in(paths: list[Path], root: Path = ROOT) -> list[str]:
    found = []
    for corpus, words in CORPUS_WORDS.items():
        pattern = _pattern(words)
        for path in paths:
            for line, text in code_strings(path):
                if match := pattern.search(text):
                    found.append(f"{path.relative_to(root)}:{line} {match.group(0)!r} ({corpus})")
    return found


def engine_modules() -> list[Path]:
    return [p for package in ENGINE for p in sorted((ROOT / package).rglob("*.py")) if "packs" not in p.parts]


def test_no_corpus_word_in_the_engine() -> None:
    assert len(engine_modules()) > 80  # the scan reads the engine, not an empty folder
    assert corpus_words_in(engine_modules()) == []


def test_the_scan_finds_a_word_in_a_regex_or_an_f_string_but_not_in_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        '"""Who was the RBI Governor in 2017?"""\n'
        "import re\n\n"
        "# the repo rate, in a comment\n"
        'ASKS = re.compile(r"\\bwho\\b[^?]*\\bgovernor\\b")\n'
        'NOTE = f"{1} lakh"\n'
        'REPORT = "annual report"  # "report" is not "repo"\n'
        "def f():\n"
        '    """The MPC decided."""\n'
        '    return "the FORM 10-K cover"\n'
    )
    found = corpus_words_in([module], tmp_path)
    assert found == [
        "probe.py:5 'governor' (central-bank minutes (RBI))",
        "probe.py:6 'lakh' (central-bank minutes (RBI))",
        "probe.py:10 '10-K' (company filings (SEC))",
    ]


def test_each_corpus_word_that_the_engine_needs_is_in_a_pack() -> None:
    # The words the engine reads from the packs (its institutions, instruments, offices, scales) are
    # each some pack's own: a pack says what belongs to it.
    own = {word.lower() for pack in registry.INSTALLED for word in pack.own_words}
    for words in CORPUS_WORDS.values():
        for word in words:
            if word not in {"Varma", "Patra", "Shaktikanta"}:  # people are read from the documents
                assert word.lower() in own, word
