"""Choosing the evidence for a document answer: the smallest set of sentences of one document that
covers every aspect the question asks (change, level, who, how many, why) for its metric and
target period, and the member/vote table when the question is about a vote.

Used twice with the same rules: by the ``rag_search`` node (to see which aspects its passages do
not cover yet, and search the chosen document again for them) and by the answer composer.
Pure: passages in, choices out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from research.agent.evidence.levels import ASKS_FORECAST, is_base, is_projection, level_figures
from research.agent.question.companies import FORWARD_RE
from research.agent.question.lexicon import Metric, names_metric
from research.agent.question.periods import MONTHS, Period, mentions, only_as_span_end
from research.agent.question.understand import Understanding
from research.agent.text.sentences import FIGURE_RE, figures_in, keywords, sentences, stems
from research.agent.text.tables import HONORIFIC, VoteTable, vote_tables
from research.packs import registry

DECISION_RE = re.compile(
    r"\b(reduc\w*|cut\w*|lower\w*|increas\w*|rais\w*|hik\w*|keep|kept|leave|left|maintain\w*|hold|held|"
    r"retain\w*|unchanged|remain\w*|moderat\w*|declin\w*|rose|rise|fell|fall|eas\w*|grew|accelerat\w*|"
    r"decelerat\w*|revis\w*)\b",
    re.I,
)
MOVE_RE = re.compile(r"\b(\d+(?:\.\d+)?)\s*(basis points|bps|percentage points?)\b|\bfrom [^;]{0,40}\bto\b", re.I)
# A cause given: "due primarily to", "driven by", "as a result of" (a filing's discussion of a line).
CAUSE = (
    r"due (?:primarily |mainly |largely |principally )?to|driven (?:primarily |mainly |largely )?by|as a result of|"
    r"resulting from|reflecting|owing to|attributable to|because of"
)
CAUSE_RE = re.compile(rf"\b(?:{CAUSE})\b", re.I)
WHY_RE = re.compile(
    rf"\b({CAUSE}|because|on account of|in view of|given (?:the|that)|in order to|"
    r"so as to|to ensure|considering|against this backdrop|accordingly|in these circumstances|warrant\w*|"
    r"concern\w*|risks?)\b",
    re.I,
)
_NAME_RE = re.compile(rf"{HONORIFIC}\s*[A-Z]")
# "Who dissented …?" asks for the member who did: a sentence naming one who voted against, voted for
# another move or expressed reservations ("Prof. Jayanth R. Varma expressed reservations on this part").
DISSENT_ASKED = re.compile(r"\b(dissent\w*|against|reservations?|disagree\w*|opposed)\b", re.I)
DISSENT_STATED = re.compile(
    r"\b(reservations?|dissent\w*|voted against|disagree\w*|"
    r"voted (?:for|to) (?:a )?(?:change|reduc\w*|increas\w*|cut))\b",
    re.I,
)
# A member's own view ("I vote…", "my concern…") is not the institution's statement.
# "In the April meeting …", "at the previous meeting …": about another meeting than the one asked.
_MONTH_NAMES = "|".join(MONTHS)
_COMMITTEES = "|".join((*registry.COMMITTEES, "Committee"))
OTHER_MEETING = re.compile(
    rf"\b(?:in|at|during|since|from) the (?:(?:{_COMMITTEES})[’']s )?"  # "In the Committee’s June resolution"
    rf"(?:(?:{_MONTH_NAMES}|previous|last|earlier|preceding) )(?:\w+ ){{0,2}}"
    rf"(?:meetings?|reviews?|policy|resolution)\b"
    rf"|\bmeeting (?:held )?(?:in|during) (?:{_MONTH_NAMES})\b",  # "in its meeting held in May"
    re.I,
)
# "revised downwards from 7.0 per cent in the June policy to 6.9 per cent": the earlier meeting dates
# only the figure revised from; the sentence states this meeting's own.
_FROM_FIGURE = re.compile(r"\bfrom [\d.]+ per cent\s*$", re.I)


def about_other_meeting(sentence: str) -> bool:
    """Whether ``sentence`` speaks of another meeting than its document's (OTHER_MEETING), other
    than to date the figure a revision starts from."""
    return any(not _FROM_FIGURE.search(sentence[: m.start()]) for m in OTHER_MEETING.finditer(sentence))


# "raising the repo rate cumulatively by 250 bps during May 2022 to February 2023": many meetings' moves;
# "… increase in policy repo rate by 250 basis points since May 2022 …", "the total reduction in the
# policy rate since …": the moves since then, together.
CUMULATIVE_MOVE = re.compile(
    r"\bcumulative(?:ly)?\s+by\b|\b(?:cumulative|total)\s+(?:increase|reduction|hike|cut)s?\s+(?:of|in)\b"
    rf"|\b(?:basis points|bps|percentage points?) (?:since|from) (?:{_MONTH_NAMES})\b",
    re.I,
)
FIRST_PERSON = re.compile(r"(?:^|[\s(“\"])(?:I|I'm|I’m)\s|\b[Mm]y\b")


@dataclass
class Candidate:
    """One sentence of one retrieved passage, with what it can answer."""

    passage: dict[str, Any]
    sentence: str
    rank: int
    covers: set[str] = field(default_factory=set)
    metric_ok: bool = True
    target_ok: bool = True
    score: float = 0.0

    @property
    def document_id(self) -> Any:
        return self.passage.get("document_id")


@dataclass
class Evidence:
    """The chosen document's sentences (page order), its vote table if asked, and what is left."""

    document_id: Any
    chosen: list[Candidate]
    table: tuple[dict[str, Any], VoteTable] | None
    uncovered: set[str]
    metric_found: bool
    target_found: bool


def is_level(unit: str, percent: bool) -> bool:
    if "point" in unit or unit in ("basis points", "bps"):
        return False
    return unit in ("per cent", "%", "percent") if percent else True


def aspects_of(sentence: str, u: Understanding, metric_ok: bool, outcome: bool = False) -> set[str]:
    """The aspects ``sentence`` can answer; with ``outcome`` (the question asks what happened, not a
    forecast), a projected figure is no level."""
    covers: set[str] = set()
    figures = figures_in(sentence)
    moved = DECISION_RE.search(sentence) and (MOVE_RE.search(sentence) or "unchanged" in sentence.lower())
    if metric_ok and moved and not FIRST_PERSON.search(sentence):
        covers.add("change")  # a member's "I vote for a cut by 25 basis points" is not the decision
    # A level is a per-cent figure (an amount for amount metrics), not a move ("by 25 basis points"),
    # of the metric asked, and not what it is compared with (research/agent/evidence/levels.py).
    percent = not u.metrics or u.metrics[0].percent
    levels = [
        f
        for f in level_figures(sentence, u.metrics)
        if not is_base(sentence, f) and not (outcome and is_projection(sentence, f))
    ]
    if metric_ok and any(is_level(unit, percent) for _, _, unit in levels):
        covers.add("level")
    if u.guidance and figures and FORWARD_RE.search(sentence):
        covers.add("level")  # the figure guided ("forecasting revenue of $11.5 billion to $12.5 billion")
    if len(_NAME_RE.findall(sentence)) >= 1 and re.search(r"\bvot(ed|e)\b", sentence, re.I):
        covers.add("who")
    if re.search(r"\bunanimous\w*\b", sentence, re.I):
        covers.update({"who", "count"})
    if WHY_RE.search(sentence) and len(sentence) > 80 and not FIRST_PERSON.search(sentence):
        covers.add("why")  # a member's own view ("I vote … to ensure …") is not the committee's reason
    return covers


def _metric_ok(sentence: str, metrics: list[Metric]) -> bool:
    return not metrics or any(names_metric(sentence, m) for m in metrics)


def _targets_ok(sentence: str, passage: dict[str, Any], targets: list[Period]) -> bool:
    # One month asked: a span it merely begins or ends ("May 2022 to February 2023") does not date it.
    return all(mentions(sentence, t) and not (len(targets) == 1 and only_as_span_end(sentence, t)) for t in targets)


def candidates(question: str, u: Understanding, passages: list[dict[str, Any]]) -> list[Candidate]:
    """Every sentence of the passages, scored for the question (keyword coverage, metric, target
    period, figures, the aspects it covers; shorter and higher-ranked passages preferred)."""
    wanted = keywords(question)
    forecast = bool(u.guidance or ASKS_FORECAST.search(question))
    found: list[Candidate] = []
    seen: set[str] = set()
    for rank, passage in enumerate(passages):
        for sentence in sentences(passage.get("text", "")):
            if sentence in seen:
                continue  # overlapping chunks repeat sentences
            seen.add(sentence)
            metric_ok = _metric_ok(sentence, u.metrics)
            target_ok = _targets_ok(sentence, passage, u.targets)
            covers = aspects_of(sentence, u, metric_ok and target_ok, outcome=not forecast)
            if about_other_meeting(sentence) or CUMULATIVE_MOVE.search(sentence):
                covers.discard("change")  # a move another meeting made, or several together, is not this one's
            if passage.get("in_statement"):
                covers.discard("why")  # a member's statement gives that member's reasons, not the committee's
            words = stems(sentence)
            coverage = len(wanted & words) / len(wanted) if wanted else 0.0
            decision = u.aspects & {"change", "level"} and re.search(r"\bvot(ed|es?|ing)\b", sentence, re.I)
            score = (
                coverage
                - (0.5 if decision else 0.0)  # a member's vote is not the committee's decision
                + (0.6 if metric_ok and u.metrics else 0.0)
                + (0.5 if target_ok and u.targets else 0.0)
                + 0.35 * len(covers & u.aspects)
                - 0.01 * rank
                - 0.0015 * max(0, len(sentence) - 220)
                # Documents state their conclusions first (a resolution, an overview): earlier pages
                # win a tie; a member's first-person view ranks below the institution's statement.
                - 0.02 * min(int(passage.get("page_number") or 0), 15)
                - (0.4 if FIRST_PERSON.search(sentence) or passage.get("in_statement") else 0.0)
                - (0.3 if about_other_meeting(sentence) else 0.0)
            )
            found.append(Candidate(passage, sentence, rank, covers, metric_ok, target_ok, score))
    return found


def _pick(cands: list[Candidate], wanted: set[str]) -> list[Candidate]:
    """Greedy set cover: the sentence covering most still-uncovered aspects (best score on ties),
    until every aspect is covered or nothing adds one; at most three sentences."""
    chosen: list[Candidate] = []
    left = set(wanted)
    while left and len(chosen) < 3:
        useful = [c for c in cands if c not in chosen and c.covers & left]
        if not useful:
            break
        best = max(useful, key=lambda c: (len(c.covers & left), c.score))
        chosen.append(best)
        left -= best.covers
    return chosen


# A vote on the stance ("Voting on the Resolution to remain focused on withdrawal of accommodation").
STANCE_WORDS = re.compile(r"\b(stance|accommodat\w*|neutral)\b", re.I)


def _table(question: str, passages: list[dict[str, Any]], document_id: Any) -> tuple[dict[str, Any], VoteTable] | None:
    """The vote table of the resolution asked about: a question about the stance wants the vote on
    the stance, never the rate's (the minutes may tabulate only the rate's, and state the stance
    vote in a sentence); otherwise the rate's before the stance's."""
    stance = bool(STANCE_WORDS.search(question))
    found = [
        (passage, table)
        for passage in passages
        if passage.get("document_id") == document_id
        for table in vote_tables(passage.get("text", ""))
    ]
    on_stance = [f for f in found if STANCE_WORDS.search(f[1].caption)]
    if stance:
        return on_stance[0] if on_stance else None
    return next((f for f in found if f not in on_stance), found[0] if found else None)


def choose(question: str, u: Understanding, passages: list[dict[str, Any]]) -> Evidence | None:
    """The evidence for ``question`` among ``passages`` (``None`` when there are none)."""
    cands = candidates(question, u, passages)
    if not cands:
        return None
    lead = _by_standing(max(cands, key=lambda c: c.score), cands, u)
    doc = lead.document_id
    own = [c for c in cands if c.document_id == doc]
    wanted = set(u.aspects)
    table = _table(question, passages, doc) if wanted & {"who", "count"} else None
    if table is not None:
        wanted -= {"who", "count"}
    chosen = _pick(own, wanted)
    if not chosen and (wanted or table is None):
        chosen = [max(own, key=lambda c: c.score)]
    chosen += _dissent(question, own, chosen) if table is None else []
    covered = set().union(*(c.covers for c in chosen)) if chosen else set()
    if table is not None:
        covered |= {"who", "count"}
    chosen.sort(key=lambda c: (int(c.passage.get("page_number") or 0), c.rank))
    chosen = _with_antecedents(chosen, own) if "why" in wanted else chosen
    return Evidence(
        document_id=doc,
        chosen=chosen,
        table=table,
        uncovered=set(u.aspects) - covered,
        metric_found=any(c.metric_ok for c in own) if u.metrics else True,
        target_found=any(c.target_ok and c.metric_ok for c in own) if u.targets else True,
    )


# A document's standing in the library (research/tools.py document_source): the team's reference set
# over a team upload, a team upload over someone's private note.
_STANDING = {"reference": 2, "team": 1, "private": 0}


def _standing(c: Candidate) -> int:
    return _STANDING.get(str(c.passage.get("source") or "team"), 1)


def _issuer(c: Candidate) -> str:
    return " ".join(str(c.passage.get("issuer") or "").lower().split())


def _by_standing(lead: Candidate, cands: list[Candidate], u: Understanding) -> Candidate:
    """The best sentence of a document of higher standing, on the same issuer, that answers as much as
    ``lead`` does, if any: when the reference set and a note both give the figure asked, the reference
    set's is the answer, whichever scored higher. A question about the user's own documents ("my
    note") is theirs."""
    if u.mine:
        return lead
    asked = lead.covers & u.aspects
    rivals = [
        c
        for c in cands
        if _standing(c) > _standing(lead)
        and _issuer(c) == _issuer(lead)  # the same subject: one bank's rate does not overrule a note on another
        and c.metric_ok >= lead.metric_ok
        and c.target_ok >= lead.target_ok
        and asked <= c.covers
        and (FIGURE_RE.search(c.sentence) is not None or FIGURE_RE.search(lead.sentence) is None)
    ]
    return max(rivals, key=lambda c: (_standing(c), c.score)) if rivals else lead


# "Accordingly, the MPC decided …", "In these circumstances, …": the reasons are the sentence before.
_REFERS_BACK = re.compile(
    r"^(?:accordingly|hence|therefore|thus|in (?:these|such|this) circumstances?|under these circumstances|"
    r"against this backdrop|in view of (?:this|these|the above)|taking (?:all )?these)\b",
    re.I,
)


def _with_antecedents(chosen: list[Candidate], own: list[Candidate]) -> list[Candidate]:
    """For a "why" question, each chosen sentence that refers back for its reasons ("Accordingly,
    the MPC decided …") preceded by the sentence before it, from a passage of the document holding both."""
    out: list[Candidate] = []
    passages = list({id(c.passage): c.passage for c in own}.values())
    for cand in chosen:
        for passage in [cand.passage, *passages] if _REFERS_BACK.search(cand.sentence) else []:
            said = sentences(passage.get("text", ""))
            at = said.index(cand.sentence) if cand.sentence in said else 0
            if at > 0 and all(said[at - 1] != c.sentence for c in chosen + out):
                out.append(Candidate(passage, said[at - 1], cand.rank, {"why"}, cand.metric_ok, cand.target_ok))
                break
        out.append(cand)
    return out


def _dissent(question: str, own: list[Candidate], chosen: list[Candidate]) -> list[Candidate]:
    """The sentence naming the dissenting member, when a dissent is asked and none chosen names one."""
    if not DISSENT_ASKED.search(question) or any(DISSENT_STATED.search(c.sentence) for c in chosen):
        return []
    stated = [c for c in own if DISSENT_STATED.search(c.sentence) and _NAME_RE.search(c.sentence)]
    return [max(stated, key=lambda c: c.score)] if stated else []


def aspect_query(aspect: str, u: Understanding, question: str) -> str:
    """What to search the chosen document for, to find an aspect its passages did not cover."""
    metric = u.metrics[0].label if u.metrics else ""
    return {
        "who": "voted members vote resolution Member Vote",
        "count": "voted members vote resolution Member Vote",
        "change": f"decided to {metric} basis points unchanged",
        "level": f"{metric} per cent",
        "why": f"{question} reasons",
    }.get(aspect, question)
