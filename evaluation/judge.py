"""The deterministic judge: compares what an agent showed with what a case expects, and checks on
its own that every figure and citation it showed can be traced to stored evidence.

It is deliberately independent of the product's verifier (``research/agent/verify/claims.py``): it
re-reads tool outputs from the *stored trace steps*, re-reads quotes from the *stored chunks* and
recomputes calculations with exact rational arithmetic (``fractions.Fraction``), so a verifier that
passes everything is caught here. Pure functions: the runner hands in everything from the database.

Number normalisation: "6.5 per cent", "6.50%" and "6.50 percent" are one figure (6.5, percent);
"1,523.20" and "14,10,000" lose their grouping; an expected "6.50" matches any shown figure that
rounds to it at two decimals.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

_NUMBER = r"[-−+]?(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d+)?"
FIGURE_RE = re.compile(
    rf"(?<![\w.])({_NUMBER})(?:\s*(%|per\s*cent\b|percent\b|bps\b|basis\s+points?\b|pp\b))?", re.IGNORECASE
)
# Not figures: dates, fiscal years, window labels and the product's source/calculation marks.
DATES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]+\s+\d{4}\b|\b[A-Z][a-z]+\s+\d{1,2},?\s+\d{4}\b"
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\b"
    r"|\b(?:FY|Q[1-4]\s*)?\d{4}-\d{2}\b|\b(?:19|20)\d{2}\b"
)
WINDOWS = re.compile(r"\b\d+[- ](?:day|week|month|year)s?\b", re.IGNORECASE)
MARKS = re.compile(r"\[(?:Source|Calculated|Note|Link):[^\]]*\]")  # a link's path ("/portfolios/2/") is no figure
# A vote table of the MPC minutes as stored text: "Member Vote Dr. A Yes Dr. B No …", up to the
# next member's statement or the next table.
VOTE_TABLE = re.compile(r"Member\s+Vote\b(.*?)(?=Statement\s+by|Voting\s+on|Member\s+Vote|$)", re.S)
QUOTES = re.compile(r"“([^”]*)”")


@dataclass(frozen=True)
class Figure:
    value: Decimal
    places: int
    unit: str  # "%", "bps", "pp" or ""

    def matches(self, shown: Figure) -> bool:
        """``shown`` is this expected figure: the same unit (when both state one) and equal once
        rounded to the expected figure's decimal places."""
        if self.unit and shown.unit and self.unit != shown.unit:
            return False
        tolerance = Decimal(5) * Decimal(10) ** (-(self.places + 1))
        return abs(shown.value - self.value) <= tolerance


def _unit(raw: str | None) -> str:
    low = re.sub(r"\s+", " ", (raw or "").lower())
    if low == "%" or "cent" in low:
        return "%"
    if low.startswith("bp") or "basis" in low:
        return "bps"
    return "pp" if low == "pp" else ""


def parse_figures(text: str) -> list[Figure]:
    """Every figure in ``text`` with its unit, in order."""
    figures = []
    for match in FIGURE_RE.finditer(text or ""):
        raw = match.group(1).replace(",", "").replace("−", "-")
        try:
            value = Decimal(raw)
        except InvalidOperation:
            continue
        places = len(raw.split(".", 1)[1]) if "." in raw else 0
        figures.append(Figure(value, places, _unit(match.group(2))))
    return figures


def figure(text: str) -> Figure:
    """The one figure an expected value such as "6.50%" or "6.5 per cent" states."""
    found = parse_figures(text)
    if len(found) != 1:
        raise ValueError(f"expected exactly one figure in {text!r}, found {len(found)}")
    return found[0]


def expected_figure(text: str) -> str:
    """Check an expected value: one figure ("6.50%"), or a compound figure such as a vote split
    ("5–1") whose parts must appear together, as written. Raises ValueError on a value with none."""
    if not parse_figures(text):
        raise ValueError(f"expected a figure in {text!r}, found none")
    return text


def _dashless(text: str) -> str:
    # "5–1", "5-1" and "5 − 1" are one vote split: dashes and spacing are typography, not content.
    return re.sub(r"\s*[-–—−]\s*", "-", squash(text))


def missing_figures(expected: Iterable[str], shown_text: str) -> list[str]:
    """The expected figures that ``shown_text`` does not state. A single figure matches by value
    and unit (number normalisation); a compound one (a vote split) must appear whole."""
    shown = parse_figures(shown_text)

    def stated(item: str) -> bool:
        parts = parse_figures(item)
        if len(parts) == 1:
            return any(parts[0].matches(s) for s in shown)
        return _dashless(item) in _dashless(shown_text)

    return [item for item in expected if not stated(item)]


def squash(text: str) -> str:
    """Whitespace-normalised text; quotes are compared on this (PDF text breaks lines anywhere)."""
    return " ".join((text or "").split())


# --- exact recomputation of the calculator's expressions --------------------------------------
def _pct(a: Fraction, b: Fraction) -> Fraction:
    return (b - a) / abs(a) * 100


_FUNCS: dict[str, Callable[..., Fraction]] = {
    "pct_change": _pct,
    "growth_rate": _pct,
    "ratio": lambda a, b: a / b,
    "mean": lambda *v: sum(v, Fraction(0)) / len(v),
    "avg": lambda *v: sum(v, Fraction(0)) / len(v),
    "sum": lambda *v: sum(v, Fraction(0)),
    "min": lambda *v: min(v),
    "max": lambda *v: max(v),
    "abs": lambda x: abs(x),
    "cagr": lambda b, e, n: Fraction((float(e) / float(b)) ** (1 / float(n)) - 1) * 100,
    "sqrt": lambda x: Fraction(float(x) ** 0.5),
    "round": lambda x, n=Fraction(0): Fraction(round(x, int(n))),
}
_OPS: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
}


def _exact(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _exact(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _exact(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = _exact(node.left), _exact(node.right)
        if exponent.denominator == 1 and abs(exponent) <= 100:
            return base ** int(exponent)
        return Fraction(float(base) ** float(exponent))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return Fraction(_OPS[type(node.op)](_exact(node.left), _exact(node.right)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
        return Fraction(_FUNCS[node.func.id](*[_exact(a) for a in node.args]))
    raise ValueError(f"cannot recompute {ast.dump(node)[:80]}")


def recompute(expression: str) -> Fraction | None:
    """The expression's exact value (``None`` when it is not plain arithmetic we can recompute)."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", expression or "").replace("^", "**").replace("×", "*")
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%", r"(\1/100)", text)
    try:
        return _exact(ast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None


# --- tracing what was shown ---------------------------------------------------------------------
def _lookup(output: Any, path: list[Any]) -> Any:
    for key in path:
        output = output[key]
    return output


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def claim_traced(claim: dict[str, Any], steps: list[dict[str, Any]], chunks: dict[int, dict[str, Any]]) -> bool:
    """Whether the judge can trace one claim: a tool claim's value re-read from a stored trace step
    of its node, a calculation recomputed exactly, a quoted figure (or a statement cell's figure)
    found in its stored chunk (a row cut between two passages: in either)."""
    kind = claim.get("kind")
    if kind == "tool":
        node = str(claim.get("result_key", "")).split(":", 1)[0]
        for step in steps:
            if step["node"] != node:
                continue
            try:
                if _close(float(_lookup(step["outputs"], claim["path"])), float(claim["value"])):
                    return True
            except (KeyError, IndexError, TypeError, ValueError):
                continue
        return False
    if kind == "calc":
        again = recompute(str(claim.get("expression", "")))
        return again is not None and _close(float(again), float(claim["value"]), 1e-6)
    if kind == "quote":
        chunk = chunks.get(int(claim.get("chunk_id") or 0))
        return chunk is not None and str(claim.get("quote_figure", "")) in squash(chunk["text"])
    if kind == "cell":  # a statement-table cell: its figure re-read from the stored passage(s) holding the row
        held = [chunks.get(int(claim.get(key) or 0)) for key in ("chunk_id", "chunk_next")]
        body = " ".join(squash(c["text"]) for c in held if c is not None)
        return bool(body) and bool(claim.get("quote_figure")) and str(claim["quote_figure"]) in body
    if kind == "table" and claim.get("extra"):  # the members of one magnitude ("4 voted for 35 basis points")
        chunk = chunks.get(int(claim.get("chunk_id") or 0))
        tables = VOTE_TABLE.findall(squash(chunk["text"])) if chunk is not None else []
        counts = {len(re.findall(rf"(?<![\d.]){re.escape(str(claim['extra']))}(?![\d.])", t)) for t in tables}
        return str(claim.get("display")) == str(claim["value"]) and claim["value"] in counts
    if kind == "table" and claim.get("side") in ("for", "against"):  # one side's count, shown as that number
        chunk = chunks.get(int(claim.get("chunk_id") or 0))
        index = 0 if claim["side"] == "for" else 1
        tallies = vote_tallies(chunk["text"]) if chunk is not None else set()
        return str(claim.get("display")) == str(claim["value"]) and any(t[index] == claim["value"] for t in tallies)
    if kind == "table" and "against" in claim:  # a vote split: recounted from the stored table
        chunk = chunks.get(int(claim.get("chunk_id") or 0))
        return chunk is not None and (claim["value"], claim["against"]) in vote_tallies(chunk["text"])
    return False


def vote_tallies(text: str) -> set[tuple[int, int]]:
    """(yes, no) of every vote table in a stored passage, counted from its members' votes."""
    tables = VOTE_TABLE.findall(squash(text))
    return {(len(re.findall(r"\bYes\b", t)), len(re.findall(r"\bNo\b", t))) for t in tables}


def citation_resolves_web(citation: dict[str, Any], steps: list[dict[str, Any]]) -> bool:
    """A web citation resolves when a stored web-search result of the turn has its link, its
    quote verbatim in the result's snippet, and its title: "title — link"."""
    quote = squash(citation.get("quote", "")).strip(" .…")
    for step in steps:
        if step["node"] != "web_search" or not isinstance(step.get("outputs"), dict):
            continue
        for hit in step["outputs"].get("results", []):
            if hit.get("url") != citation.get("url") or quote not in squash(hit.get("snippet", "")):
                continue
            if str(citation.get("citation", "")) == f"{hit.get('title')} — {hit.get('url')}":
                return True
    return False


def citation_resolves(citation: dict[str, Any], chunks: dict[int, dict[str, Any]]) -> bool:
    """A citation resolves when its chunk is stored, the quote is verbatim in it and the cited
    title and page are that chunk's."""
    chunk = chunks.get(int(citation.get("chunk_id") or 0))
    if chunk is None:
        return False
    quote = squash(citation.get("quote", "")).strip(" .…")
    if quote and quote not in squash(chunk["text"]):
        return False
    page = f"p. {chunk['page']}"
    if chunk.get("kind") == "pdf" and str(chunk["page"]) != str(chunk.get("page_number", chunk["page"])):
        page += f" (PDF p. {chunk['page_number']})"  # a printed label that is not the physical page
    return str(citation.get("citation", "")) == f"{chunk['title']}, {page}"


def shown_figures(answer: str, question: str) -> tuple[list[str], list[str]]:
    """(figures inside quotes, figures outside quotes) of the shown answer, leaving out dates,
    window labels, the source/calculation marks and numbers the question itself gave."""
    text = MARKS.sub(" ", answer or "")
    asked = {f.value for f in parse_figures(_plain(question or ""))}
    inside = QUOTES.findall(text)  # verbatim: dates stay in, they are part of the quote
    outside = _plain(QUOTES.sub(" ", text))
    return inside, [m.group(1) for m in FIGURE_RE.finditer(outside) if _decimal(m.group(1)) not in asked]


def _plain(text: str) -> str:
    """``text`` without dates and window labels (not figures)."""
    return WINDOWS.sub(" ", DATES.sub(" ", text))


def _decimal(raw: str) -> Decimal:
    return Decimal(raw.replace(",", "").replace("−", "-"))


def _web_snippets(steps: list[dict[str, Any]]) -> list[str]:
    """The stored web results' snippets: a figure quoted from a web page is traced to its result."""
    return [
        squash(hit.get("snippet", ""))
        for s in steps
        if s["node"] == "web_search" and isinstance(s.get("outputs"), dict)
        for hit in s["outputs"].get("results", [])
    ]


def _names(output: Any) -> set[str]:
    """Every ``name`` a stored tool output gives (an instrument's: "NIFTY 50", "SPDR S&P 500 ETF Trust")."""
    if isinstance(output, dict):
        found = {v for k, v in output.items() if k == "name" and isinstance(v, str) and re.search("[A-Za-z]", v)}
        return found.union(*(_names(v) for v in output.values()))
    if isinstance(output, list):
        return set().union(*(_names(v) for v in output))
    return set()


def _unnamed(answer: str, steps: list[dict[str, Any]]) -> str:
    """The answer without the names the turn's own tool outputs gave: a number in a name is no figure.
    Web results are not read here (their text is untrusted)."""
    names = set().union(*(_names(s.get("outputs")) for s in steps if s["node"] != "web_search"))
    for name in sorted(names, key=len, reverse=True):
        answer = answer.replace(name, " ")
    return answer


def trace_figures(
    answer: str, question: str, claims: list[dict[str, Any]], steps: list[dict[str, Any]], chunks: dict[int, Any]
) -> tuple[int, int, list[str]]:
    """(figures traced, figures shown, what could not be traced) for one shown answer. The titles of
    the cited documents are names, not figures ("Form 10-Q", "second quarter 2023 results")."""
    for title in sorted({str(c.get("title") or "") for c in chunks.values()} - {""}, key=len, reverse=True):
        answer = answer.replace(title, " ")
    quotes, outside = shown_figures(_unnamed(answer, steps), question)
    cited_texts = [squash(c["text"]) for c in chunks.values()] + _web_snippets(steps)
    traced = shown = 0
    problems: list[str] = []
    for quote in quotes:
        count = len(parse_figures(_plain(quote)))
        shown += count
        if any(squash(quote).strip(" .…") in body for body in cited_texts):
            traced += count
        elif count:
            problems.append(f"quote not found in a stored passage: “{quote[:60]}”")
    good = {
        _decimal(f.group(1))
        for c in claims
        if claim_traced(c, steps, chunks)
        for f in FIGURE_RE.finditer(c.get("display", ""))
    }
    for raw in outside:
        shown += 1
        if _decimal(raw) in good:
            traced += 1
        else:
            problems.append(f"{raw} is not a traced tool output, calculation or quote")
    return traced, shown, problems
