"""The direct answer line of a document answer, in plain words, and the evidence quoted under it:
a level ("CPI inflation (Q3 2024-25): 4.6 per cent, according to …"), a decision ("… the policy rate
was cut by 25 basis points to 6.25 per cent"), a vote ("The vote … was 4–2: for — …; against — …"),
the figures a text question asks for, each a ``[[cN]]`` claim on its quoted sentence or table.
Pure: no database.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from research.agent.compose.composer import Composer, document_name, excerpt, source_name
from research.agent.compose.decision import decision_line, level_memo
from research.agent.compose.member import (
    asks_magnitude_count,
    magnitude_counts,
)
from research.agent.evidence.anchors import anchor
from research.agent.evidence.levels import (
    dated_after,
    dated_before,
    locate,
    of_gdp,
    range_low,
)
from research.agent.evidence.moves import asks_if_kept, other_move, verdict
from research.agent.evidence.select import (
    Candidate,
    Evidence,
    choose,
)
from research.agent.question.lexicon import ASKS_AGAINST, metrics_asked
from research.agent.question.understand import Understanding
from research.agent.text.tables import VoteTable, join_names


def _described(sentence: str, figure: tuple[str, str]) -> tuple[str, str]:
    """What the sentence says of ``figure`` beyond its number, for its label: the period it dates it by
    ("4.9 per cent in October 2023", "January-February 2024 (5.1 per cent …"; not one a bracket narrows,
    "during 2023-24 (April-December)") and
    a measure by GDP ("24.1 per cent of GDP")."""
    found = locate(sentence, *figure)
    if found is None:
        return "", ""
    dated = dated_after(sentence, found) or dated_before(sentence, found)
    return (dated.label if dated else ""), (" of GDP" if of_gdp(sentence, found) else "")


def level_line(c: Composer, cand: Candidate, u: Understanding, memo: dict[str, Any]) -> str | None:
    if u.metrics and not u.metrics[0].figured:
        return None  # "the policy stance: 25 basis points" would be another figure's
    found = anchor(cand.sentence, u)
    if found is None:
        return None
    figure = (found[1], found[2])
    label = u.metrics[0].label if u.metrics else "figure found"  # not named as the figure asked
    dated, measure = _described(cand.sentence, figure)
    when = ", ".join(t.label for t in u.targets) or dated
    period = f" ({when})" if when else ""
    ref = c.quote_claim(cand.passage, figure[0], figure[1], u.metrics[0].label if u.metrics else "figure", **memo)
    low = range_low(cand.sentence, found)
    if low is not None:  # "in the range of 6.8-7.1 per cent": both ends, not the upper one alone
        ref = f"between {c.quote_claim(cand.passage, low, '', f'low end of the {label} range')} and {ref}"
    return f"{label[:1].upper()}{label[1:]}{period}: {ref}{measure}, according to {source_name(cand.passage)}."


def figures_line(c: Composer, picked: list[tuple[Candidate, str, str]], u: Understanding) -> str:
    """“The figures asked: 500 employees and 4 per cent, according to …” — each a quote claim on its sentence."""
    refs = [c.quote_claim(cand.passage, num, unit, "figure asked", **level_memo(u, cand)) for cand, num, unit in picked]
    docs = list(dict.fromkeys(source_name(cand.passage) for cand, _, _ in picked))
    what = "The figure asked" if len(refs) == 1 else "The figures asked"
    line = f"{what}: {' and '.join(refs)}, according to {' and '.join(docs)}."
    quoted: list[str] = []
    for cand, num, _ in picked:  # each sentence once, cut around its figure
        if cand.sentence not in quoted:
            quoted.append(cand.sentence)
            text = excerpt(cand.sentence, num)
            line += f" “{text}” {c.cite(cand.passage, text)}"
    return line


def vote_line(c: Composer, passage: dict[str, Any], table: VoteTable) -> str:
    split = c.table_claim(
        passage, display=table.split, value=len(table.yes), against=len(table.no), label="vote (for–against)"
    )
    against = f"; against — {join_names(table.no)}" if table.no else " (unanimous)"
    # "Who voted against the cut?" asked of a unanimous vote: the answer is that no one did.
    nobody = "No member voted against. " if not table.no and ASKS_AGAINST.search(c.question) else ""
    line = f"{nobody}The vote in {document_name(passage)} was {split}: for — {join_names(table.yes)}{against}."
    # August 2019: all six for the cut, but two for 25 basis points and four for 35.
    sizes = magnitude_counts(c, passage, table) if len({r.extra for r in table.rows} - {""}) > 1 else []
    return f"{line} By magnitude: {'; '.join(sizes)}." if sizes else line


def direct_line(c: Composer, ev: Evidence, u: Understanding) -> str | None:
    lines: list[str] = []
    figure_asked = u.aspects & {"change", "level"}
    for cand in ev.chosen:
        if not figure_asked or c.figures:
            break
        memo = level_memo(u, cand)
        # "What did the committee decide?" names no metric: the decision quoted names it ("… the policy rate").
        metric = u.metrics[0] if u.metrics else next(iter(metrics_asked(cand.sentence)), None)
        asks_move = "change" in u.aspects or asks_if_kept(c.question)
        decision = decision_line(c, cand, metric, memo) if metric and asks_move else None
        if decision and other_move(c.question, decision[1]):
            c.outcome = "escalate"  # "When did the committee last raise the rate?" is not answered by a hold
            return None
        line = verdict(c.question, decision[1]) + decision[0] if decision else None
        lines.append(line or level_line(c, cand, u, memo) or "")
    if ev.table is not None:
        lines.append(vote_line(c, *ev.table))
    return " ".join(x for x in lines if x) or None


def level_lead(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> Callable[[], None] | None:
    """ "What was the policy rate after the August 2019 meeting and how many members voted for 35 basis
    points?": the rate's line and its sentence, which the magnitude counts follow (None when the
    question asks no level beside the count)."""
    if "level" not in u.aspects or not asks_magnitude_count(c.question):
        return None

    def lead() -> None:
        chosen = choose(c.question, u, passages)
        if chosen is None:
            return
        ev = dataclasses.replace(chosen, table=None)  # the vote table is quoted with the counts
        if line := direct_line(c, ev, u):
            c.parts.append(line)
            quote_evidence(c, ev)

    return lead


def quote_evidence(c: Composer, ev: Evidence) -> None:
    for cand in ev.chosen:
        c.quote(cand.passage, cand.sentence, "figure", figure_claim=False)
    if ev.table is not None:
        passage, table = ev.table
        caption = table.caption if len(table.text) > 600 else table.text
        c.parts.append(f"“{caption}” {c.cite(passage, caption)}")
