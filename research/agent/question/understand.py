"""Question understanding: what a question asks, turned into retrieval filters and checks.

From the question (already resolved against the conversation) it extracts

* the **document period** it names — "the August 2024 meeting", "the 2023-24 annual report" —
  matched against each document's period (``period_start``/``period_end``, else ``doc_date``);
* the **target period** of the figure — "the Q3 2024-25 CPI projection" — which the evidence must
  mention;
* the **document family**: a dated series or a named report, recognised from the words of the
  user's own library (doc types and the words their titles share), and "our/my note" = the
  user's own uploads;
* the **metrics** and the **aspects** asked (change, level, who, how many, why).

Generic over any dated document series: it reads the library's doc types, titles and dates, and
knows nothing about a particular issuer. Pure: the library snapshot is passed in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from research.agent.question.companies import (
    FORWARD_RE,
    FiscalAsk,
    alias_words,
    companies_named,
    fiscal_asked,
    fiscal_matches,
    forms_named,
    guidance_source,
)
from research.agent.question.lexicon import Metric, aspects_asked, metrics_asked
from research.agent.question.library import LibDoc
from research.agent.question.periods import MONTH_WORD, MONTHS, Period, find_periods

_WORD = re.compile(r"[a-z][a-z0-9]+")
_GENERIC = frozenset({"the", "and", "for", "of", "on", "in", "a", "an", "to", "by", *MONTHS, *(m[:3] for m in MONTHS)})
MINE_RE = re.compile(
    r"\b(our|my|own|we)\b(?:\s+\w+){0,3}?\s+(notes?|uploads?|memos?|files?|documents?|research|view)\b", re.I
)
MEETING_RE = re.compile(r"\b(meeting|meetings|minutes|policy review)\b", re.I)
# Words a filing's title shares with the way a question names a period ("the third quarter",
# "12 weeks ended", "fiscal 2023") or a figure ("earnings per share"): they name no form of filing.
_PERIOD_WORDS = frozenset(
    [
        "quarter",
        "quarters",
        "ended",
        "ending",
        "fiscal",
        "year",
        "years",
        "month",
        "months",
        "week",
        "weeks",
        "first",
        "second",
        "third",
        "fourth",
        "half",
        "nine",
        "six",
        "three",
        "twelve",
    ]
)
_FIGURE_PHRASE = re.compile(r"\bearnings\s+(?:\(loss\)\s+)?(?:per|a)\s+(?:diluted\s+|basic\s+)?share", re.I)


@dataclass
class Understanding:
    doc_periods: list[Period] = field(default_factory=list)
    targets: list[Period] = field(default_factory=list)
    doc_types: list[str] = field(default_factory=list)
    mine: bool = False
    meeting: bool = False
    metrics: list[Metric] = field(default_factory=list)
    aspects: set[str] = field(default_factory=set)
    # The companies named (the library's issuers) and the fiscal periods asked of their filings.
    issuers: list[str] = field(default_factory=list)
    fiscal: list[FiscalAsk] = field(default_factory=list)
    # Asks what a company guided (forecast, expected): its filings' statement cells are actual
    # figures, not the guidance; ``fiscal`` holds the quarter that gave it (companies.guidance_source).
    guidance: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe, for the plan and the trace."""
        return {
            "doc_periods": [_period_dict(p) for p in self.doc_periods],
            "targets": [_period_dict(p) for p in self.targets],
            "doc_types": self.doc_types,
            "mine": self.mine,
            "meeting": self.meeting,
            "metrics": [m.key for m in self.metrics],
            "aspects": sorted(self.aspects),
            "issuers": self.issuers,
            "fiscal": [f.as_dict() for f in self.fiscal],
            "guidance": self.guidance,
        }


def _period_dict(p: Period) -> dict[str, Any]:
    return {"kind": p.kind, "start": p.start.isoformat(), "end": p.end.isoformat(), "label": p.label}


def period_from_dict(d: dict[str, Any]) -> Period:
    return Period(d["kind"], dt.date.fromisoformat(d["start"]), dt.date.fromisoformat(d["end"]), d["label"])


def understanding_from_dict(d: dict[str, Any]) -> Understanding:
    from research.agent.question.lexicon import METRICS

    by_key = {m.key: m for m in METRICS}
    return Understanding(
        doc_periods=[period_from_dict(p) for p in d.get("doc_periods", [])],
        targets=[period_from_dict(p) for p in d.get("targets", [])],
        doc_types=list(d.get("doc_types", [])),
        mine=bool(d.get("mine")),
        meeting=bool(d.get("meeting")),
        metrics=[by_key[k] for k in d.get("metrics", []) if k in by_key],
        aspects=set(d.get("aspects", [])),
        issuers=list(d.get("issuers", [])),
        fiscal=[FiscalAsk.from_dict(f) for f in d.get("fiscal", [])],
        guidance=bool(d.get("guidance")),
    )


def family_words(library: list[LibDoc]) -> dict[str, set[str]]:
    """doc type → the words that name it: its own words plus the words most of its titles share,
    minus words every family shares (an issuer's name does not pick a series)."""
    by_type: dict[str, list[LibDoc]] = {}
    for doc in library:
        if doc.doc_type:
            by_type.setdefault(doc.doc_type, []).append(doc)
    words: dict[str, set[str]] = {}
    for doc_type, docs in by_type.items():
        counts = Counter(w for d in docs for w in set(_WORD.findall(d.title.lower())))
        shared = {w for w, n in counts.items() if n >= 0.6 * len(docs)}
        words[doc_type] = {w for w in (set(doc_type.lower().split("_")) | shared) if w not in _GENERIC}
    if len(words) > 1:
        common = set.intersection(*words.values())
        words = {k: v - common for k, v in words.items()}
    return words


def _families_named(question: str, library: list[LibDoc]) -> list[str]:
    tokens = set(_WORD.findall(question.lower()))
    tokens |= {t[:-1] for t in tokens if t.endswith("s")}
    named = []
    for doc_type, words in family_words(library).items():
        hits = tokens & words
        # One distinctive word ("minutes", "MPC") or two together ("annual report").
        if hits and (len(hits) >= 2 or len(words) <= 2 or any(len(w) <= 4 or w == "minutes" for w in hits)):
            named.append(doc_type)
    return named


def _near_family(question: str, period: Period, words: set[str]) -> bool:
    """Whether ``period`` is written next to a family word or "meeting"/"minutes" (within 4 words)."""
    before = question[: period.at].lower().split()[-4:]
    after = question[period.at + period.length :].lower().split()[:4]
    near = {re.sub(r"[^a-z0-9]", "", w) for w in before + after}
    return bool(near & (words | {"meeting", "minutes", "meetings", "report", "review"}))


def _split_periods(question: str, families: list[str], library: list[LibDoc]) -> tuple[list[Period], list[Period]]:
    """(document periods, target periods)."""
    words = set().union(*(family_words(library).get(f, set()) for f in families)) if families else set()
    periods = find_periods(question)
    months = [p for p in periods if p.kind in ("month", "year")]
    # "the projection for 2024-25 … between February 2024 and April 2024": the figure's own period
    # is named apart, so months in which meetings were held name those meetings' documents.
    meeting_months = (
        len(months) > 1
        and any(p.kind in ("fy", "quarter", "half") for p in periods)
        and all(m.kind == "month" and _dated_in(m, library) for m in months)
    )
    doc: list[Period] = []
    target: list[Period] = []
    for p in periods:
        if p.kind in ("quarter", "half"):
            target.append(p)
        elif p.kind == "fy":
            named = families and _near_family(question, p, words) and _has_fy_docs(families, library)
            (doc if named else target).append(p)
        elif (
            meeting_months
            or _near_family(question, p, words)
            or (len(months) == 1 and (families or MEETING_RE.search(question) or _dated_in(p, library)))
        ):
            doc.append(p)
        else:
            target.append(p)
    return doc, target


def _dated_in(period: Period, library: list[LibDoc]) -> bool:
    """Whether some short-period document (a meeting, a monthly note) is dated in ``period``: then
    a lone month in a question most likely names that document, not a figure's month."""
    return any((_short(d) and period.overlaps(d.start, d.end)) or period.contains(d.doc_date) for d in library)


def _short(doc: LibDoc) -> bool:
    return short_period(doc.start, doc.end)


def short_period(start: dt.date | None, end: dt.date | None) -> bool:
    """A document about a few weeks at most: a meeting's minutes, a monthly note."""
    return bool(start and end and (end - start).days <= 45)


def _has_fy_docs(families: list[str], library: list[LibDoc]) -> bool:
    """Whether the family's documents cover periods of about a year (reports, not meetings)."""
    return any(
        d.doc_type in families and d.period_start and d.period_end and (d.period_end - d.period_start).days > 300
        for d in library
    )


def understand(question: str, library: list[LibDoc]) -> Understanding:
    issuers = companies_named(question, library)
    families = _families_of_company(question, library, issuers) if issuers else _families_named(question, library)
    doc_periods, targets = _split_periods(question, families, library)
    fiscal = guidance_source(question, fiscal_asked(question) if issuers else [])
    if fiscal:
        # The filing for the period is chosen by the filter; a passage need not restate the period
        # as the question words it ("the quarter ended July 1, 2023" is "Three Months Ended July 1, 2023").
        spans = [(f.at, f.at + f.length) for f in fiscal]
        doc_periods, targets = (
            [p for p in periods if not any(p.at < e and p.at + p.length > s for s, e in spans)]
            for periods in (doc_periods, targets)
        )
    return Understanding(
        doc_periods=doc_periods,
        targets=targets,
        doc_types=families,
        mine=bool(MINE_RE.search(question)),
        meeting=bool(re.search(r"\bmeeting", question, re.I)),
        metrics=metrics_asked(question),
        aspects=aspects_asked(question),
        issuers=issuers,
        fiscal=fiscal,
        guidance=bool(issuers and FORWARD_RE.search(question)),
    )


def _families_of_company(question: str, library: list[LibDoc], issuers: list[str]) -> list[str]:
    """For a question naming a company: the forms it names ("10-Q"), or a family named by two of
    its words ("earnings release") — never by the company's own name, by the words that name a period
    ("quarter ended", which its titles may share) or a figure ("earnings per share")."""
    named = forms_named(question, library)
    tokens = set(_WORD.findall(_FIGURE_PHRASE.sub(" ", question).lower()))
    tokens = (tokens | {t[:-1] for t in tokens if t.endswith("s")}) - alias_words(issuers) - _PERIOD_WORDS
    for doc_type, words in family_words(library).items():
        if doc_type not in named and len(tokens & words) >= 2:
            named.append(doc_type)
    return named


_FILLER = re.compile(
    r"\b(according to|as per|in (?:the|its)|at (?:the|its)|per the|what|which|did|does|do|is|was|were|are|the|its|"
    r"our|my|we|say|said|state[sd]?|tell me|about|meeting|meetings|minutes)\b",
    re.I,
)


def search_query(question: str, u: Understanding, library: list[LibDoc]) -> str:
    """What to search for once the filters name the documents: the question without the words the
    filters already stand for (the document period, the family's words, "according to"), with the
    metric's own name added — so BM25 and the embedding weigh the content asked for."""
    text = question
    # A meeting's month is not in its text; a report's fiscal year is, so it stays in the query.
    for period in sorted((p for p in u.doc_periods if p.kind != "fy"), key=lambda p: -p.at):
        text = text[: period.at] + " " + text[period.at + period.length :]
    words = set().union(*(family_words(library).get(f, set()) for f in u.doc_types)) if u.doc_types else set()
    kept = [w for w in re.split(r"\s+", _FILLER.sub(" ", text)) if w and w.lower().strip("?,.'’s") not in words]
    focused = " ".join(kept).strip(" ?,.")
    for metric in u.metrics:
        label = metric.label.lower()
        # The label is added where it names the metric more fully than the question ("GDP growth"
        # → "real GDP growth"), not where the question uses another full name of it ("headline
        # inflation" for "CPI inflation"): that would pull in the passages written with the label's words.
        synonym = any(" " in term and term not in label and term in focused.lower() for term in metric.terms)
        if label not in focused.lower() and not synonym:
            focused = f"{focused} {metric.label}"
    return focused if len(focused.split()) >= 2 else question


def year_asked(u: Understanding, question: str) -> Period | None:
    """The year (a fiscal or calendar year) the question asks about, when it names a year and no
    shorter period: then one month's reading is not the answer."""
    periods = [*u.doc_periods, *u.targets]
    years = [p for p in periods if p.kind in ("fy", "year")]
    shorter = any(p.kind in ("month", "quarter", "half", "range") for p in periods)
    if not years or shorter or MONTH_WORD.search(question):
        return None
    return years[0]


def fiscal_year_of_meeting(u: Understanding) -> Period | None:
    """The fiscal year asked of one meeting's minutes, no month being asked ("the GDP growth
    projection for 2019-20 in the August 2019 minutes"): a figure dated to a month is not its."""
    if any(t.kind == "month" for t in u.targets) or not any(p.kind == "month" for p in u.doc_periods):
        return None
    return next((t for t in u.targets if t.kind == "fy"), None)


def doc_matches(doc: LibDoc, u: Understanding) -> bool:
    """Whether ``doc`` is one the question points at (family, owner, every document period)."""
    if u.doc_types and doc.doc_type not in u.doc_types:
        return False
    if u.mine and not doc.mine:
        return False
    if u.issuers and doc.issuer not in u.issuers:
        return False
    if u.fiscal and not any(fiscal_matches(doc, ask) for ask in u.fiscal):
        return False
    months = [p for p in u.doc_periods if p.kind == "month"]
    if len(months) > 1 and not any(_dated(doc, p, u) for p in months):
        return False  # "the February 2024 and April 2024 minutes": either month's document
    for period in u.doc_periods:
        if period.kind == "fy" and doc.period_start and doc.period_end:
            if not (doc.period_start <= period.start and doc.period_end >= period.end - dt.timedelta(days=1)):
                return False  # a fiscal year names a report covering it, not every meeting in it
        elif not (len(months) > 1 and period.kind == "month") and not _dated(doc, period, u):
            return False
    return True


def _dated(doc: LibDoc, period: Period, u: Understanding) -> bool:
    return period.overlaps(doc.start, doc.end) or (not u.meeting and period.contains(doc.doc_date))


def matching_documents(u: Understanding, library: list[LibDoc]) -> list[LibDoc] | None:
    """The documents the question points at, or ``None`` when it names no family, owner, company
    or period (then the whole library is searched)."""
    if not (u.doc_types or u.mine or u.doc_periods or u.issuers):
        return None
    docs = [d for d in library if doc_matches(d, u)]
    if any(p.kind == "month" for p in u.doc_periods):
        # "the vote in February 2024": the meeting held that month, not a year's report spanning it
        # (whose account of another meeting would otherwise answer).
        docs = [d for d in docs if _short(d)] or docs
    return docs


def as_filters(u: Understanding, docs: list[LibDoc] | None) -> dict[str, Any]:
    """Search filters for the documents the question points at (``{}``: search everything)."""
    return {} if docs is None else {"document_ids": sorted(d.id for d in docs)}


def mentions_doc(p: dict[str, Any], period: Period, u: Understanding) -> bool:
    """Whether passage ``p`` is from a document of ``period`` (one of the periods ``u`` names)."""
    return doc_matches(LibDoc.of_passage(p), replace(u, doc_periods=[period]))
