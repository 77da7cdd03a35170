"""What a corpus pack is: one kind of document's knowledge, as data the generic engine reads.

The engine (research/agent, research/retrieval, research/ingest) knows how a question is read, how
evidence is chosen, how an answer is composed and verified; it names no institution, form or market.
What one kind of corpus adds — its metrics and the words that name them, the names of its
institutions and offices, the small grammars of its documents (a committee's vote table, who chaired
a meeting, a decision on the stance), the phrasings its documents use, and its calendar — lives in a
pack. A new corpus of the same kind gains by adding to a pack's data, not by editing the engine.
Pure data: nothing here imports the engine.
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


@dataclass(frozen=True)
class Office:
    """An office whose holder a committee's minutes name: how a question asks for it and how the
    minutes name its holder (``holder``: a pattern whose first group is the name, ``{title}`` standing
    for a titled name)."""

    name: str  # "Governor"
    holder: str  # r"\bchaired by ({title}), Governor\b"
    asked: str = ""  # a question naming this office rather than the chair's (empty: the chair's)
    chairs: bool = False  # the committee's chair: "X, Governor, chaired …"; else "X sat as <title> at …"
    title: str = ""  # how the answer names an office that does not chair


@dataclass(frozen=True)
class Chairs:
    """Who held a committee's offices at each meeting, read from the minutes' opening sentence."""

    asked: str  # a question asking who held an office or chaired
    titled_name: str  # how the minutes write a member's name with its title
    offices: tuple[Office, ...]  # the offices a question may ask, the ones asked by name first
    query: str  # what to search each meeting's minutes for


@dataclass(frozen=True)
class Recognition:
    """How a document of this pack is told from its own first pages (never from its file name):
    every pattern of ``all_of`` and at least ``enough`` of ``any_of`` on the first pages' text, or a
    document type or issuer the pack speaks for, read from the document at upload."""

    any_of: tuple[str, ...] = ()
    enough: int = 1
    all_of: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    issuers: tuple[str, ...] = ()

    def claims_by_metadata(self, doc_type: str = "", issuer: str = "") -> bool:
        if doc_type and doc_type in self.doc_types:
            return True
        return bool(issuer) and any(re.search(pattern, issuer, re.I) for pattern in self.issuers)

    def claims_by_text(self, text: str) -> bool:
        if not self.any_of and not self.all_of:
            return False
        found = sum(1 for pattern in self.any_of if re.search(pattern, text, re.I | re.M))
        return found >= min(self.enough, len(self.any_of)) and all(re.search(p, text, re.M) for p in self.all_of)


@dataclass(frozen=True)
class Pack:
    """One corpus's knowledge. Every field is optional: a pack says only what its corpus adds."""

    name: str  # "central_bank"
    label: str  # "central-bank minutes and reports", for people
    recognition: Recognition = Recognition()

    # Vocabulary: the metrics its documents give, most specific first ("reverse repo" before "repo").
    metrics: tuple[Metric, ...] = ()
    # The rates each of its committee's meetings sets, and the headline one among them.
    policy_rates: tuple[str, ...] = ()
    policy_rate: str = ""
    # Names of its institutions and their documents: in every passage, so they rank nothing and name
    # no ticker or topic ("rbi", "mpc").
    quiet_words: tuple[str, ...] = ()
    # Words shorter than a keyword that still name what is asked ("repo").
    short_terms: tuple[str, ...] = ()
    # Its committees' short names ("MPC"), beside the generic "Committee".
    committees: tuple[str, ...] = ()
    # Honorifics its documents write before a member's name ("Shri", "Smt"), beside the generic ones.
    honorifics: tuple[str, ...] = ()
    # Offices that stand for a person in a question ("the Governor").
    offices: tuple[str, ...] = ()
    # Abbreviations ending in a full stop that do not end a sentence ("Rs.").
    abbreviations: tuple[str, ...] = ()
    # Scale words of its currency amounts ("lakh crore", "crore", "lakh"), beside million and billion,
    # and the first words of those units, which may follow a figure cut short ("7.4 lakh").
    money_scales: tuple[str, ...] = ()
    unit_first_words: tuple[str, ...] = ()
    # A regular-expression alternation of the words that send a question to its documents.
    library_topics: str = ""
    # How an answer describes what the library holds of this pack, in a note.
    library_description: str = ""

    # Grammars and phrasings of its documents.
    chairs: Chairs | None = None
    decision_queries: tuple[tuple[str, str], ...] = ()  # (metric key, how its decision is worded)
    stance_query: str = ""  # how its committee words a decision on the stance
    compare_aspects: tuple[str, ...] = ()  # what two of its documents are compared on by default
    # The answer composers its documents need beyond the generic ones, by their names in the engine's
    # registry (research/agent/compose/chain.py), which tries them in its order.
    composers: tuple[str, ...] = ()

    # Market data: names people use for an instrument (alias → symbol), and how a benchmark defaults.
    ticker_aliases: tuple[tuple[str, str], ...] = ()
    benchmark_note: str = ""

    # Calendar: the month its fiscal year starts in (1 = the calendar year).
    fiscal_year_start_month: int = 0

    # The words that belong to this corpus alone: tests/research/test_corpus_words.py fails if any of
    # them appears in a string of the engine's code outside research/packs/.
    own_words: tuple[str, ...] = ()
