"""The installed corpus packs, in order, and what the engine reads of them all together.

The order is the packs' precedence: where two packs give the same kind of thing in order (metrics,
most specific first), the first pack's come first. The engine imports this module, never a pack.
"""

from __future__ import annotations

from research.packs import central_bank, filings, market
from research.packs.base import Chairs, Metric, Pack

INSTALLED: tuple[Pack, ...] = (central_bank.PACK, filings.PACK, market.PACK)


def _union(field: str) -> tuple[str, ...]:
    """Every installed pack's entries of a tuple field, in pack order, each once."""
    return tuple(dict.fromkeys(item for pack in INSTALLED for item in getattr(pack, field)))


METRICS: tuple[Metric, ...] = tuple(metric for pack in INSTALLED for metric in pack.metrics)
POLICY_RATES = _union("policy_rates")
# The headline policy rate: the first pack that names one (its committee's decision is "the" decision).
POLICY_RATE = next((pack.policy_rate for pack in INSTALLED if pack.policy_rate), "")
QUIET_WORDS = _union("quiet_words")
SHORT_TERMS = _union("short_terms")
COMMITTEES = _union("committees")
HONORIFICS = _union("honorifics")
OFFICES = _union("offices")
ABBREVIATIONS = _union("abbreviations")
MONEY_SCALES = _union("money_scales")
UNIT_FIRST_WORDS = _union("unit_first_words")
LIBRARY_TOPICS = "|".join(pack.library_topics for pack in INSTALLED if pack.library_topics)
LIBRARY_DESCRIPTION = ", ".join(pack.library_description for pack in INSTALLED if pack.library_description)
CHAIRS: Chairs | None = next((pack.chairs for pack in INSTALLED if pack.chairs), None)
DECISION_QUERIES: dict[str, str] = {key: query for pack in INSTALLED for key, query in pack.decision_queries}
STANCE_QUERY = next((pack.stance_query for pack in INSTALLED if pack.stance_query), "")
COMPARE_ASPECTS = _union("compare_aspects")
TICKER_ALIASES: dict[str, str] = {alias: symbol for pack in INSTALLED for alias, symbol in pack.ticker_aliases}
BENCHMARK_NOTE = next((pack.benchmark_note for pack in INSTALLED if pack.benchmark_note), "")
# The library's calendar when a question names a fiscal year without a document to say whose: the
# first pack that states one (the shipped corpus's, April), else the calendar year.
FISCAL_YEAR_START_MONTH = next((p.fiscal_year_start_month for p in INSTALLED if p.fiscal_year_start_month), 1)


def metric(key: str) -> Metric | None:
    return next((m for m in METRICS if m.key == key), None)


def pack_named(name: str) -> Pack | None:
    return next((pack for pack in INSTALLED if pack.name == name), None)


def recognise(text: str, *, doc_type: str = "", issuer: str = "") -> str:
    """The name of the pack that reads a document, from its first pages' ``text`` and the type and
    issuer read from it at upload ("" when no pack claims it: the engine's generic reading alone)."""
    by_metadata = (p for p in INSTALLED if p.recognition.claims_by_metadata(doc_type, issuer))
    by_text = (p for p in INSTALLED if p.recognition.claims_by_text(text))
    return next((pack.name for pack in (*by_metadata, *by_text)), "")
