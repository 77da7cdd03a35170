"""Fast-path planning rules: the turns they recognise need no LLM call.

``plan_rules(question)`` returns ``(rule, plan)`` where ``plan`` maps tool nodes to their arguments
(several nodes = one parallel superstep), or ``None`` when no rule applies and the LLM planner (or
the retrieval fallback offline) decides. Pure functions: no database, no network.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from typing import Any, Literal

from django.conf import settings

from research.agent.question.horizons import horizon_asked
from research.agent.question.periods import MONTH_YEAR_RE
from research.agent.question.statements import parse_ask
from research.packs import registry

Plan = dict[str, dict[str, Any]]

# Words that are no ticker, though a symbol could spell them: the packs' institution names among them.
_STOP = {"THE", "AND", "FOR", "WITH", "WHAT", "HOW", "CPI", "GDP", "EPS", "CAGR", "USD", "INR", "LTD"} | {
    word.upper() for word in registry.QUIET_WORDS
}


@lru_cache(maxsize=1)
def ticker_aliases() -> dict[str, str]:
    """lower-case alias → symbol, from the shipped instrument list (symbol, bare symbol, name words)."""
    aliases: dict[str, str] = {}
    path = settings.MARKET_DATA_DIR / "instruments.csv"
    try:
        with path.open() as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        rows = []
    for row in rows:
        symbol = row["symbol"]
        bare = symbol.split(".")[0].lstrip("^")
        aliases[symbol.lower()] = symbol
        aliases[bare.lower()] = symbol
        name = re.sub(r"\b(ltd|limited|inc|corp|corporation|co|company|the|class [a-z])\b\.?", "", row["name"].lower())
        words = [w for w in re.split(r"[^a-z&]+", name) if w]
        if words and len(words[0]) > 3:
            aliases[words[0]] = symbol
        if len(words) >= 2:
            aliases[" ".join(words[:2])] = symbol
    aliases.update(registry.TICKER_ALIASES)
    return {k: v for k, v in aliases.items() if k.upper() not in _STOP}


def find_tickers(text: str) -> list[str]:
    """Tickers named in ``text`` (symbols or company names), in order of appearance."""
    aliases = ticker_aliases()
    found: list[tuple[int, str]] = []
    lowered = text.lower()
    for alias, symbol in aliases.items():
        for match in re.finditer(r"(?<![a-z0-9^])" + re.escape(alias) + r"(?![a-z0-9])", lowered):
            found.append((match.start(), symbol))
    ordered: list[str] = []
    for _, symbol in sorted(found):
        if symbol not in ordered:
            ordered.append(symbol)
    return ordered


NUMBER = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?"
EXPRESSION_RE = re.compile(
    r"((?:pct_change|growth_rate|cagr|ratio|mean|avg|sum|min|max|abs|sqrt|round)\s*\([^()?]*\)"
    r"|[-+(]*\s*\d[\d.,\s]*(?:\s*[-+*/x×÷^]\s*\(?\s*\d[\d.,]*\s*\)?%?)+)"
)
PCT_BETWEEN_RE = re.compile(
    r"percent(?:age)?\s+(?:change|increase|decrease|growth|difference)\s+(?:from|between)\s+"
    rf"({NUMBER})\s*%?\s*(?:to|and)\s+({NUMBER})",
    re.IGNORECASE,
)
CAGR_RE = re.compile(
    rf"\bcagr\b.*?(?:from\s+)?({NUMBER})\s*(?:to)\s*({NUMBER}).*?(?:over|in)\s+({NUMBER})\s*years?", re.IGNORECASE
)
PORTFOLIO_RE = re.compile(r"(\d+(?:\.\d+)?)\s*%\s*(?:in\s+|of\s+)?([A-Za-z][A-Za-z.&^\-]*(?:\s+[A-Z][A-Za-z]+)?)")
COMPARE_RE = re.compile(r"\b(compare|comparison|versus|vs\.?|difference between)\b", re.IGNORECASE)
# The words that send a question to the document library: the packs' topics.
DOC_RE = re.compile(rf"\b({registry.LIBRARY_TOPICS or '(?!)'})\b", re.IGNORECASE)
PRICE_RE = re.compile(r"\b(price|quote|trading|trade at|close[sd]?|closing|last close|share price|stock price)\b", re.I)
METRICS_RE = re.compile(
    r"\b(return|returns|volatility|drawdown|52[- ]week|performance|performed|risk|high|low|ytd|1y|sharpe)\b", re.I
)
FUNDAMENTALS_RE = re.compile(
    r"\b(p/?e|pe ratio|market cap|fundamentals?|dividend|eps|earnings per share|book value|valuation|sector)\b", re.I
)
NEWS_RE = re.compile(
    r"\b(news|headlines?(?!\s+(?:inflation|cpi|consumer|figure|rate|number))|today'?s|this week|"
    r"latest developments?|web|internet)\b",
    re.I,
)
HOW_DID_RE = re.compile(r"\b(how (?:did|has|have|is|does)|do(?:ne)?|better|worse|gain\w*|lost|fared)\b", re.I)
STATEMENT_CUE_RE = re.compile(
    r"\b(?:quarter|months? ended|weeks? ended|year ended|fiscal|10-?[kq]|8-?k|filings?|statements?|balance sheet|"
    r"cash[- ]flow|segments?|q[1-4]|year[- ]over[- ]year|earnings release|margin|capex|capital expenditures?)\b",
    re.I,
)
# A day, a month or a year named ("as of July 1, 2023", "in 2019"): a past figure, which filings
# hold and today's market snapshot does not.
DATED_RE = re.compile(rf"{MONTH_YEAR_RE.pattern}|\b(?:19|20)\d{{2}}\b", re.I)
SMALLTALK_RE = re.compile(r"^\s*(hi|hello|hey|thanks|thank you|help|what can you do)\b[\s!.?]*$", re.I)


def _clean_number(text: str) -> str:
    return text.replace(",", "")


def _rule_single(q: str) -> tuple[str, Plan] | None:
    if SMALLTALK_RE.match(q):
        return "smalltalk", {}
    between = PCT_BETWEEN_RE.search(q)
    if between:
        a, b = _clean_number(between.group(1)), _clean_number(between.group(2))
        return "percentage_change", {"financial_calculator": {"expression": f"pct_change({a}, {b})"}}
    cagr = CAGR_RE.search(q)
    if cagr:
        a, b, n = (_clean_number(cagr.group(i)) for i in (1, 2, 3))
        return "cagr", {"financial_calculator": {"expression": f"cagr({a}, {b}, {n})"}}
    # Fiscal years and dates ("2024-25", "2024-08-22") are not subtractions.
    expression = EXPRESSION_RE.search(re.sub(r"\b\d{4}-\d{2}(?:-\d{2})?\b", " ", q))
    if expression and re.search(r"[-+*/x×÷^()]", expression.group(1)) and not MONTH_YEAR_RE.search(expression.group(1)):
        expr = expression.group(1).strip().replace("×", "*").replace("÷", "/").replace("^", "**")
        expr = re.sub(r"(?<=\d)\s*x\s*(?=\d)", "*", expr)
        return "arithmetic", {"financial_calculator": {"expression": expr}}
    if STATEMENT_CUE_RE.search(q) and parse_ask(q) is not None:
        # A company's statement line over a filing's period: the library's tables, not market data.
        return "statement", {"rag_search": {"query": q, "filters": {}}}
    tickers = find_tickers(q)
    weights = PORTFOLIO_RE.findall(q)
    if "portfolio" in q.lower() and len(weights) >= 2:
        named = [(float(w), find_tickers(name)) for w, name in weights]
        holdings = [(w, t[0]) for w, t in named if t]
        if len(holdings) >= 2:
            return "portfolio", {
                "portfolio_analyzer": {"tickers": [t for _, t in holdings], "weights": [w / 100 for w, _ in holdings]}
            }
    horizon = horizon_asked(q) if tickers else None
    if horizon is not None and (COMPARE_RE.search(q) or METRICS_RE.search(q) or HOW_DID_RE.search(q)):
        call = {"tool": "compare_returns", "tickers": tickers[:6], **horizon.as_args()}
        return "horizon_returns", {"market_data": {"calls": [call]}}
    if COMPARE_RE.search(q) and len(tickers) >= 2:
        return "compare_tickers", {
            "market_data": {"calls": [{"tool": "compute_metrics", "ticker": t} for t in tickers[:4]]}
        }
    if COMPARE_RE.search(q) and (
        len(MONTH_YEAR_RE.findall(q)) >= 2 or re.search(r"\b(minutes|meetings?|reports?|stance)\b", q, re.I)
    ):
        return "compare_documents", {"document_comparator": {"query": q}}
    if tickers and FUNDAMENTALS_RE.search(q) and not DATED_RE.search(q):
        return "fundamentals", {
            "market_data": {"calls": [{"tool": "get_fundamentals", "ticker": t} for t in tickers[:4]]}
        }
    if tickers and METRICS_RE.search(q):
        return "ticker_metrics", {
            "market_data": {"calls": [{"tool": "compute_metrics", "ticker": t} for t in tickers[:4]]}
        }
    if tickers and (PRICE_RE.search(q) or len(q.split()) <= 4):
        return "quote", {"market_data": {"calls": [{"tool": "get_stock_quote", "ticker": t} for t in tickers[:4]]}}
    if NEWS_RE.search(q):  # "today's headlines about the RBI" asks the web, not the library
        return "web", {"web_search": {"query": q}}
    if DOC_RE.search(q):
        return "documents", {"rag_search": {"query": q, "filters": {}}}
    return None


SAVED_PORTFOLIO_RE = re.compile(r"\b(my|our|the)\b[^?]*\bportfolio\b|\bportfolio (?:called|named)\b", re.I)


def saved_portfolio_rule(question: str, portfolios: list[tuple[int, str]]) -> tuple[str, Plan] | None:
    """A question about one of the user's saved portfolios ("how has my Core India portfolio done?"):
    the one whose name it contains, else the only one the user has."""
    if not portfolios or not SAVED_PORTFOLIO_RE.search(question) or PORTFOLIO_RE.findall(question)[1:]:
        return None
    lowered = question.lower()
    named = [pid for pid, name in portfolios if name.lower() in lowered]
    chosen = named[:1] or ([portfolios[0][0]] if len(portfolios) == 1 else [])
    if not chosen:
        return None
    return "saved_portfolio", {"portfolio_analyzer": {"portfolio_id": chosen[0]}}


def plan_rules(question: str) -> tuple[str, Plan] | None:
    """The fast-path plan for ``question`` or ``None``. A question joining two independent asks
    ("the repo rate in August 2024 and INFY's price") is planned as one parallel superstep."""
    q = question.strip()
    single = _rule_single(q)
    parts = re.split(r"\s+(?:and also|and|also)\s+(?=(?:what|how|the|show|give|get)\b)", q, flags=re.I)
    if len(parts) == 2:
        first, second = _rule_single(parts[0]), _rule_single(parts[1])
        if first and second and first[1] and second[1] and set(first[1]).isdisjoint(second[1]):
            return f"{first[0]}+{second[0]}", {**first[1], **second[1]}
    return single


# Tool nodes and the registry tools they may call (the LLM planner sees the registry names).
ToolNode = Literal[
    "rag_search", "financial_calculator", "document_comparator", "web_search", "market_data", "portfolio_analyzer"
]
NODE_TOOLS: dict[ToolNode, tuple[str, ...]] = {
    "rag_search": ("search_financial_documents",),
    "financial_calculator": ("calculate_financial_metric",),
    "document_comparator": ("document_comparator",),
    "web_search": ("web_search",),
    "market_data": ("get_stock_quote", "compute_metrics", "get_fundamentals", "get_price_history", "compare_returns"),
    "portfolio_analyzer": ("analyze_portfolio",),
}
TOOL_NODES = tuple(NODE_TOOLS)


def plan_from_tool_calls(calls: list[tuple[str, dict[str, Any]]]) -> Plan:
    """The LLM planner's tool calls (registry names) → a plan over tool nodes."""
    plan: Plan = {}
    for name, args in calls:
        if name == "search_financial_documents":
            plan["rag_search"] = {"query": str(args.get("query", "")), "filters": args.get("filters") or {}}
        elif name == "calculate_financial_metric":
            plan["financial_calculator"] = {"expression": str(args.get("expression", ""))}
        elif name == "document_comparator":
            plan["document_comparator"] = {"query": str(args.get("query", ""))}
        elif name == "web_search":
            plan["web_search"] = {"query": str(args.get("query", ""))}
        elif name == "analyze_portfolio":
            plan["portfolio_analyzer"] = dict(args)
        elif name in NODE_TOOLS["market_data"]:
            plan.setdefault("market_data", {"calls": []})["calls"].append({"tool": name, **args})
    return plan
