"""The words of financial questions: which metric a question asks about, and which aspects of it.

A metric is a named quantity with the phrases that name it in documents and the phrases that name
a *different* quantity it is easily confused with ("repo rate" is not "reverse repo rate"). The
list covers the quantities analysts ask about in central-bank, fiscal and company documents; a
question naming none falls back to its own content words. Pure data and lookups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Metric:
    key: str
    label: str  # how an answer names it
    terms: tuple[str, ...]  # any of these (lower case) names it in a passage
    excludes: tuple[str, ...] = ()  # a passage naming only these is about something else
    percent: bool = True  # usually written "x per cent"
    figured: bool = True  # has a value ("6.50 per cent"); the stance has none
    asked: tuple[str, ...] = field(default=())  # extra question phrasings


METRICS: tuple[Metric, ...] = (
    Metric("reverse_repo", "reverse repo rate", ("reverse repo",), asked=("reverse repo",)),
    Metric(
        "repo",
        "policy repo rate",
        ("policy repo rate", "repo rate", "policy rate"),
        excludes=("reverse repo",),
        asked=("repo", "policy rate", "interest rate", "key rate", "benchmark rate"),
    ),
    # Not a figure: what the committee said it would do next. "Who dissented on the stance?" asks about
    # its vote, not the rate's.
    Metric(
        "stance",
        "policy stance",
        ("stance", "withdrawal of accommodation", "accommodative", "neutral"),
        percent=False,
        figured=False,
        asked=("stance",),
    ),
    Metric("sdf", "standing deposit facility (SDF) rate", ("standing deposit facility", "sdf")),
    Metric("msf", "marginal standing facility (MSF) rate", ("marginal standing facility", "msf")),
    Metric("bank_rate", "Bank Rate", ("bank rate",)),
    Metric("crr", "cash reserve ratio (CRR)", ("cash reserve ratio", "crr")),
    Metric("slr", "statutory liquidity ratio (SLR)", ("statutory liquidity ratio", "slr")),
    Metric(
        "core_inflation",
        "core inflation",
        ("core inflation", "excluding food and fuel"),
        asked=("core inflation",),
    ),
    Metric(
        "food_inflation",
        "food inflation",
        ("food inflation", "food and beverages", "food price"),
        asked=("food inflation",),
    ),
    Metric(
        "cpi",
        "CPI inflation",
        ("cpi inflation", "headline inflation", "inflation", "cpi"),
        # "The core inflation (CPI excluding items of Food, … Fuel & Light)" names CPI only to define core.
        excludes=("core inflation", "food inflation", "cpi excluding", "cpi-excluding"),
        asked=("inflation", "cpi"),
    ),
    Metric(
        "gdp",
        "real GDP growth",
        ("real gdp growth", "gdp growth", "gdp", "growth projection", "economic growth"),
        # "US$ 65.6 billion (2.6 per cent of GDP)" measures the current account by GDP, not GDP's growth.
        excludes=("gva", "per cent of gdp", "% of gdp"),
        asked=("gdp", "growth"),
    ),
    Metric("gva", "real GVA growth", ("gva",), asked=("gva", "gross value added")),
    Metric(
        "borrowings",
        "gross market borrowings",
        ("market borrowings", "gross market borrowing", "borrowings"),
        percent=False,
        asked=("borrowing",),
    ),
    Metric("fiscal_deficit", "fiscal deficit", ("fiscal deficit", "gross fiscal deficit"), asked=("fiscal deficit",)),
    Metric(
        "current_account", "current account deficit", ("current account deficit", "cad"), asked=("current account",)
    ),
    Metric(
        "forex",
        "foreign exchange reserves",
        ("foreign exchange reserves", "forex reserves"),
        percent=False,
        asked=("forex", "foreign exchange reserve", "reserves"),
    ),
    Metric("balance_sheet", "balance sheet size", ("balance sheet",), percent=False, asked=("balance sheet",)),
    Metric("surplus", "surplus transferred", ("surplus",), percent=False, asked=("surplus", "dividend to")),
    Metric("credit_growth", "credit growth", ("credit growth", "bank credit", "non-food credit"), asked=("credit",)),
    Metric("gnpa", "gross NPA ratio", ("gross non-performing", "gnpa", "gross npa"), asked=("npa", "non-performing")),
)

ASPECTS: dict[str, re.Pattern[str]] = {
    "change": re.compile(
        r"\b(chang\w*|cut|cuts|hik\w*|rais\w*|increas\w*|reduc\w*|lower\w*|by how much|how much did|mov\w*|"
        r"decid\w*|decision|did the \w+ do)\b",
        re.I,
    ),
    "level": re.compile(
        r"\b(level|at what|to what|new rate|stand|stood|projection|projected|project|forecast|estimate\w*|"
        r"how much (?:was|is|were|are)|decid\w*|decision|average\w*|pegged|reach\w*|set at)\b"
        r"|\bwhat\b[^?]*\b(rate|rates|level|growth|inflation|ratio|size|borrowings?|reserves?|surplus|deficit|"
        r"figure|return|price)\b",
        re.I,
    ),
    "who": re.compile(r"\b(who|whom|which members?|names?|dissent\w*|voted? (?:for|against)|members? voted)\b", re.I),
    "count": re.compile(r"\b(how many|vote split|split|tally|margin|majority|unanimous\w*|votes?|voting)\b", re.I),
    "why": re.compile(r"\b(why|reasons?|rationale|because|justif\w+|what drove|motivat\w+|cited)\b", re.I),
}


def metrics_asked(question: str) -> list[Metric]:
    """The metrics ``question`` asks about, most specific first ("reverse repo" wins over "repo")."""
    q = question.lower()
    found: list[Metric] = []
    for metric in METRICS:
        phrases = metric.asked or metric.terms
        if any(re.search(rf"\b{re.escape(p)}(?:s|es)?\b", q) for p in phrases):
            if any(m.key != metric.key and _shadows(m, metric, q) for m in found):
                continue
            found.append(metric)
    return found


def _shadows(kept: Metric, candidate: Metric, question: str) -> bool:
    """A metric already found that makes ``candidate`` a false hit (``reverse repo`` contains ``repo``)."""
    return any(ex in question and ex in " ".join(kept.terms) for ex in candidate.excludes)


_HOW_MANY_POINTS = re.compile(r"\bhow many (?:basis |percentage )?points\b|\bhow many bps\b", re.I)


def aspects_asked(question: str) -> set[str]:
    """Which aspects the question asks: change, level, who, count, why (``level`` when none)."""
    found = {name for name, rx in ASPECTS.items() if rx.search(question)}
    if _HOW_MANY_POINTS.search(question) and not re.search(r"\bvot|\bmembers?\b", question, re.I):
        found = (found - {"count"}) | {"change"}  # "by how many basis points": the size of a move, not a count
    if "count" in found and re.search(r"\bvot", question, re.I) and not re.search(r"how many", question, re.I):
        found.add("who")  # "how did the members vote" wants the names and the split
    if found & {"who", "count"} and not re.search(r"\b(decid\w*|decision|level|at what)\b", question, re.I):
        found -= {"level", "change"}  # a vote question: "the repo rate hike" names the resolution, not a figure
    return found or {"level"}


def names_metric(text: str, metric: Metric) -> bool:
    """Whether ``text`` is about ``metric``: it names it, beyond the phrases of what it excludes."""
    lowered = text.lower()
    for ex in metric.excludes:
        lowered = lowered.replace(ex, " ")
    return any(re.search(rf"\b{re.escape(t)}", lowered) for t in metric.terms)
