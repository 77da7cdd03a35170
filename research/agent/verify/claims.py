"""Numbers in answers come from code.

An answer is a template whose figures are ``[[cN]]`` references into a claim table minted from tool
output, or verbatim quotes (“…”) from a cited passage. :func:`verify_answer` re-checks every claim
through an independent path and refuses any other number in the text:

* market-data and portfolio claims are recomputed from the raw daily closes (read through the same
  cache selector the tools read, cut at the output's as-of) with ``briefs/recompute.py``, which
  shares no code with the tool maths (``recompute="bars"``);
* claims with no independent recompute (fundamentals such as P/E, which are provider figures) are
  only re-read from the stored output, and say so (``recompute="output_only"``);
* calculator claims are recomputed by a Decimal evaluator; quotes are checked against the chunk.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation, getcontext
from typing import Any

from portfolios import recompute

CLAIM_REF = re.compile(r"\[\[(c\d+)\]\]")
# Marks whose text is not a figure: a citation, a calculation, a tool's note, a link to a page.
SOURCE_MARK = re.compile(r"\[(?:Source|Calculated|Note|Link):[^\]]*\]")
QUOTE = re.compile(r"“([^”]*)”")
DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]+\s+\d{4}\b|\b[A-Z][a-z]+\s+\d{1,2},?\s+\d{4}\b"
    r"|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}\b"
    r"|\b(?:FY)?\d{4}-\d{2}\b"
)
# Window names such as "1-day", "30-day", "52-week" are labels, not figures.
WINDOW = re.compile(r"\b\d+[- ](?:day|week|month|year)s?\b", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:,\d{3})*(?:\.\d+)?")


def render_text(template: str, claims: list[dict[str, Any]]) -> str:
    by_id = {c["id"]: c for c in claims}
    return CLAIM_REF.sub(lambda m: str(by_id.get(m.group(1), {}).get("display", m.group(0))), template)


def _numbers(text: str) -> list[str]:
    return [n.replace(",", "") for n in NUMBER.findall(text)]


def _decimal_pct_change(old: Decimal, new: Decimal) -> Decimal:
    # Decimal arithmetic, not the calculator's float AST walk: an independent recomputation.
    return (new - old) / abs(old) * Decimal(100)


_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?|\.\d+)|(\*\*|[-+*/%()]))")


def _decimal_arithmetic(expression: str) -> Decimal:
    """A recursive-descent evaluator over Decimal for + - * / % ** and parentheses: deliberately a
    different algorithm from the calculator's float AST walk, so the two can disagree."""
    tokens: list[str] = []
    pos = 0
    text = expression.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise InvalidOperation(text[pos:])
        tokens.append(match.group(1) or match.group(2))
        pos = match.end()
    index = 0

    def peek() -> str | None:
        return tokens[index] if index < len(tokens) else None

    def take() -> str:
        nonlocal index
        index += 1
        return tokens[index - 1]

    def atom() -> Decimal:
        tok = take()
        if tok == "(":
            value = additive()
            if take() != ")":
                raise InvalidOperation("unbalanced")
            return value
        if tok in {"-", "+"}:
            value = power()
            return -value if tok == "-" else value
        return Decimal(tok)

    def power() -> Decimal:
        base = atom()
        if peek() == "**":
            take()
            exponent = power()  # right-associative
            return base**exponent
        return base

    def multiplicative() -> Decimal:
        value = power()
        while peek() in {"*", "/", "%"}:
            op, rhs = take(), power()
            value = value * rhs if op == "*" else value / rhs if op == "/" else value % rhs
        return value

    def additive() -> Decimal:
        value = multiplicative()
        while peek() in {"+", "-"}:
            op, rhs = take(), multiplicative()
            value = value + rhs if op == "+" else value - rhs
        return value

    result = additive()
    if index != len(tokens):
        raise InvalidOperation("trailing input")
    return result


def recompute_calc(expression: str) -> Decimal | None:
    """Recompute the simple finance forms the agent emits, independently of research/calculator.py."""
    getcontext().prec = 28
    match = re.fullmatch(r"\s*(pct_change|growth_rate|ratio)\(\s*([-\d.]+)\s*,\s*([-\d.]+)\s*\)\s*", expression)
    try:
        if match:
            a, b = Decimal(match.group(2)), Decimal(match.group(3))
            if match.group(1) == "ratio":
                return a / b
            return _decimal_pct_change(a, b)
        match = re.fullmatch(r"\s*cagr\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*\)\s*", expression)
        if match:
            begin, end, years = (Decimal(match.group(i)) for i in (1, 2, 3))
            return (Decimal(str(float(end / begin) ** (1 / float(years)))) - 1) * 100
        if re.fullmatch(r"[\d.\s()+\-*/%]+", expression):
            return _decimal_arithmetic(expression)
    except (InvalidOperation, ZeroDivisionError, OverflowError, IndexError):
        return None
    return None


def _lookup(output: Any, path: list[Any]) -> Any:
    for key in path:
        output = output[key]
    return output


# ``bars(symbol)`` → (dates, adjusted closes), oldest first: the series the market tools read.
BarsFetcher = Callable[[str], tuple[Sequence[dt.date], Sequence[float]]]

# Single-ticker outputs whose fields briefs/recompute.py re-derives from bars (same field names).
_BAR_TOOLS = {"get_stock_quote", "compute_metrics"}


def cached_bars(symbol: str) -> tuple[Sequence[dt.date], Sequence[float]]:
    """The cached daily closes of ``symbol`` through the portfolios cache selector the tools use."""
    from portfolios import market

    series = market.series_get(symbol)
    return series.dates, series.closes.tolist()


def _as_of(value: Any) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def _tool_of(result_key: str, output: Any, path: list[Any]) -> tuple[str, Any, list[Any]]:
    """(registry tool, that tool's own output, the claim's path inside it): a market_data result
    holds several calls (``calls[i]``, each tagged with its tool)."""
    node = result_key.split(":", 1)[0]
    if node == "portfolio_analyzer":
        return "analyze_portfolio", output, path
    if node == "market_data" and len(path) >= 2 and path[0] == "calls":
        call = output["calls"][path[1]]
        return str(call.get("tool", "")), call, path[2:]
    return node, output, path


class CannotRecompute(Exception):
    """The bars a recompute needs could not be had (so the claim cannot be shown as verified)."""


def _upto(bars: BarsFetcher, symbol: str, as_of: Any) -> tuple[list[dt.date], list[float]]:
    """The bars dated on or before ``as_of``; the newest of them must *be* ``as_of`` (same data)."""
    from core.exceptions import ApplicationError

    try:
        dates, closes = bars(symbol)
    except ApplicationError as exc:  # the portfolios cache's domain error (unknown ticker, no data, ...)
        raise CannotRecompute(f"no bars for {symbol}: {exc.message}") from exc
    day = _as_of(as_of)
    cut = bisect.bisect_right(list(dates), day)
    if cut == 0 or dates[cut - 1] != day:
        raise CannotRecompute(f"the cached bars of {symbol} have no bar dated {day}")
    return list(dates[:cut]), [float(c) for c in closes[:cut]]


def _horizon_value(bars: BarsFetcher, out: Any, path: list[Any], field: str) -> float:
    """A compare_returns figure re-derived from the bars: the baseline must be the last bar on or
    before the horizon's start, the end a bar of its own, and the return their ratio."""
    row = out["rows"][path[1]] if path[0] == "rows" else out["benchmark"]
    dates, closes = bars(row["symbol"])
    i = bisect.bisect_right(list(dates), _as_of(out["requested_start"])) - 1
    if i < 0 or dates[i] != _as_of(row["start_date"]):
        raise CannotRecompute(
            f"{row['symbol']}: the baseline is not the last bar on or before {out['requested_start']}"
        )
    _, upto_end = _upto(bars, row["symbol"], row["end_date"])
    start, end = float(closes[i]), upto_end[-1]
    return {"start_close": start, "end_close": end, "return_pct": (end / start - 1.0) * 100.0}[field]


def recompute_tool_claim(
    claim: dict[str, Any], output: Any, bars: BarsFetcher, memo: dict[str, Any] | None = None
) -> tuple[str, float | None]:
    """``("bars", value)`` — the claim's figure re-derived from raw bars (``None``: the bars do not
    give it) — or ``("output_only", None)`` when it has no independent recompute. Raises
    :class:`CannotRecompute` when the bars cannot be had. ``memo`` keeps a portfolio's daily
    returns for the other claims of the same output."""
    tool, out, path = _tool_of(claim.get("result_key", ""), output, list(claim["path"]))
    field = path[-1] if path else ""
    if tool in _BAR_TOOLS and path == [field] and field in recompute.METRIC_UNITS:
        dates, closes = _upto(bars, out["symbol"], out["as_of"])
        return "bars", recompute.recompute(field, dates, closes)
    if tool == "get_price_history" and len(path) == 3 and path[0] == "bars" and field == "close":
        # A raw bar: the cache's close on the date the output gives for that bar.
        _, closes = _upto(bars, out["symbol"], out["bars"][path[1]]["date"])
        return "bars", closes[-1]
    if tool == "compare_returns" and field in ("return_pct", "start_close", "end_close"):
        return "bars", _horizon_value(bars, out, path, field)
    if tool == "analyze_portfolio" and len(path) == 3 and path[0] == "assets" and field == "total_return":
        # One holding's total return over the analysed window: its closes on the first and last day.
        symbol = out["assets"][path[1]]["symbol"]
        first, last = _upto(bars, symbol, out["start"])[1][-1], _upto(bars, symbol, out["end"])[1][-1]
        return "bars", last / first - 1.0
    if tool == "analyze_portfolio" and path == [field] and field in recompute.PORTFOLIO_RECOMPUTE:
        # Holdings and weights as the tool resolved them (exclusions, normalisation); the bars and
        # the maths are the verifier's own, and the risk-free rate is resolved from the settings and
        # the portfolio row (portfolios.risk_free), not taken from the output.
        memo = {} if memo is None else memo
        key = f"portfolio returns of {claim.get('result_key', '')}"
        if key not in memo:
            assets = out["assets"]
            holdings = [_upto(bars, a["symbol"], out["end"]) for a in assets]
            memo[key] = recompute.portfolio_returns(
                holdings, [float(a["weight"]) for a in assets], start=_as_of(out["start"])
            )[1]
        return "bars", recompute.PORTFOLIO_RECOMPUTE[field](memo[key], _portfolio_risk_free(out))
    return "output_only", None


def _portfolio_risk_free(out: dict[str, Any]) -> float:
    """The annual risk-free rate for an analysed portfolio, resolved here from the portfolio's own
    setting and its holdings' currencies in the instrument table."""
    from portfolios.models import Instrument, Portfolio
    from portfolios.risk_free import main_currency, resolve

    override = None
    if out.get("portfolio_id"):
        override = Portfolio.objects.filter(pk=out["portfolio_id"]).values_list("risk_free_rate", flat=True).first()
    symbols = [a["symbol"] for a in out["assets"]]
    currencies = dict(Instrument.objects.filter(symbol__in=symbols).values_list("symbol", "currency"))
    currency = main_currency((currencies.get(a["symbol"], ""), float(a["weight"])) for a in out["assets"])
    return resolve(currency=currency, override=override)[0]


def check_claim(
    claim: dict[str, Any],
    outputs: dict[str, Any],
    chunk_texts: dict[int, str],
    bars: BarsFetcher = cached_bars,
    memo: dict[str, Any] | None = None,
) -> str | None:
    """``None`` when the claim holds, else what is wrong. Tool claims are labelled in place with
    how they were checked (``recompute``: "bars" or "output_only") and the ``recomputed`` value."""
    kind = claim.get("kind")
    if kind == "tool":
        output = outputs.get(claim.get("result_key", ""))
        try:
            value = float(_lookup(output, claim["path"]))
        except (KeyError, IndexError, TypeError, ValueError):
            return f"{claim['id']}: the tool output has no value at {claim.get('path')}"
        if not recompute.agrees(float(claim["value"]), value):
            return f"{claim['id']}: tool output says {value}, the claim says {claim['value']}"
        try:
            method, again = recompute_tool_claim(claim, output, bars, memo)
        except CannotRecompute as exc:
            claim.update(recompute="bars", recomputed=None)
            return f"{claim['id']}: cannot recompute from the bars ({exc})"
        claim.update(recompute=method, recomputed=again)
        if method == "bars" and not recompute.agrees(float(claim["value"]), again):
            return f"{claim['id']}: recomputed from the bars {again!r}, the claim says {claim['value']!r}"
        return None
    if kind == "calc":
        recomputed = recompute_calc(claim.get("expression", ""))
        if recomputed is None:
            return None if claim.get("recompute") == "not_applicable" else f"{claim['id']}: cannot recompute"
        if abs(float(recomputed) - float(claim["value"])) > 1e-6 * max(1.0, abs(float(recomputed))):
            return f"{claim['id']}: recomputed {float(recomputed):.6g}, the claim says {claim['value']}"
        return None
    if kind == "table":
        from research.agent.text.tables import table_claim_problem

        return table_claim_problem(claim, chunk_texts)
    if kind == "cell":
        from research.agent.verify.cells import check_cell

        return check_cell(claim, chunk_texts)
    if kind == "quote":
        from research.agent.verify.quotes import check_quote

        return check_quote(claim, chunk_texts)
    return f"{claim.get('id')}: unknown claim kind {kind!r}"


def _stray_figures(text: str, question: str, names: Sequence[str]) -> list[str]:
    """Numbers left once claims, quotes, marks, names, dates and window names are taken out: each
    one is a figure nothing vouches for (unless the question itself wrote it)."""
    text = SOURCE_MARK.sub(" ", QUOTE.sub(" ", text))
    # Names are not figures: "NIFTY 50", a document titled "Desk note 7" (longest first).
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = text.replace(name, " ")
    text = WINDOW.sub(" ", DATE.sub(" ", text))
    allowed = set(_numbers(DATE.sub(" ", question)))
    return [
        f"the figure {number} is neither a tool claim nor a quoted passage"
        for number in _numbers(text)
        if number not in allowed
    ]


def verify_answer(
    template: str,
    claims: list[dict[str, Any]],
    *,
    question: str,
    outputs: dict[str, Any],
    chunk_texts: dict[int, str],
    citations: list[dict[str, Any]],
    bars: BarsFetcher = cached_bars,
    names: Sequence[str] = (),
    web_texts: Sequence[str] = (),
) -> dict[str, Any]:
    """``{"status": "verified"|"failed", "checked": n, "problems": [...], "claims": [...]}`` where
    ``claims`` says how each tool claim was checked (recomputed from bars, or output only).
    ``names`` are names the answer may spell with digits (instruments, cited documents)."""
    problems: list[str] = []
    memo: dict[str, Any] = {}  # one cache read per symbol, one return series per portfolio

    def once(symbol: str) -> tuple[Sequence[dt.date], Sequence[float]]:
        key = f"bars of {symbol}"
        if key not in memo:
            memo[key] = bars(symbol)
        result: tuple[Sequence[dt.date], Sequence[float]] = memo[key]
        return result

    by_id = {c["id"]: c for c in claims}
    for ref in CLAIM_REF.findall(template):
        if ref not in by_id:
            problems.append(f"[[{ref}]] refers to no claim")
    for claim in claims:
        problem = check_claim(claim, outputs, chunk_texts, once, memo)
        if problem:
            problems.append(problem)
    cited = [" ".join(chunk_texts.get(int(c.get("chunk_id") or 0), "").split()) for c in citations]
    # A quoted web result must be verbatim in the result the search tool returned (its snippet).
    cited += [" ".join(text.split()) for text in web_texts]
    text = CLAIM_REF.sub(" ", template)
    for quote in QUOTE.findall(text):
        plain = " ".join(quote.split()).strip(" .…")
        if not any(plain and plain in body for body in cited):
            problems.append(f"the quote “{quote[:60]}…” is not verbatim in a cited passage")
    problems += _stray_figures(text, question, names)
    checks = [
        {"id": c["id"], "recompute": c.get("recompute"), "recomputed": c.get("recomputed")}
        for c in claims
        if c.get("kind") == "tool"
    ]
    return {
        "status": "failed" if problems else "verified",
        "checked": len(claims),
        "problems": problems,
        "claims": checks,
    }
