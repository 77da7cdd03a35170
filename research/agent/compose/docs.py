"""The document answer on the deterministic engine: one direct answer line in plain words, then the
quoted evidence with its citations.

* A rate decision reads "In RBI MPC Minutes, February 2019, the policy repo rate was cut by 25 basis
  points to 6.25 per cent." — the verb and both figures parsed from the quoted sentence.
* A vote reads "The vote was 4–2: for — …; against — …" — names and counts from the parsed table.
* A level reads "CPI inflation (Q3 2024-25): 4.6 per cent, according to …".
* No document for the named period: "The library has no … for October 2022", with the nearest
  documents of the series; evidence for another period: "… for 2023-24, not for 2024-25".
* Nothing on the company or institution named ("Microsoft's", "the Federal Open Market Committee"):
  said so, rather than another one's figures.

Every figure is a ``[[cN]]`` claim on a quoted passage or the parsed table. Pure: no database.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from research.agent.compose.chair import compose_governor
from research.agent.compose.change import compose_projection_change
from research.agent.compose.composer import Composer, document_name, excerpt
from research.agent.compose.decision import decision_line, each_meeting, level_memo, meetings_of_year
from research.agent.compose.drivers import compose_drivers
from research.agent.compose.member import (
    asks_magnitude_count,
    compose_magnitude_count,
    compose_member,
    compose_member_vote,
    compose_vote_count,
    magnitude_counts,
)
from research.agent.compose.revision import compose_revision
from research.agent.compose.stance import compose_stance
from research.agent.compose.statements.dispatch import compose_statements
from research.agent.compose.topic import compose_topic, compose_topic_absent
from research.agent.evidence.anchors import anchor, anchor_figure, own_levels
from research.agent.evidence.levels import (
    Figure,
    dated_after,
    dated_before,
    locate,
    of_gdp,
    projects_now,
    range_low,
)
from research.agent.evidence.moves import asks_if_kept, other_move, verdict
from research.agent.evidence.names import names_missing
from research.agent.evidence.passage_figures import pick_figures
from research.agent.evidence.select import (
    Candidate,
    Evidence,
    about_other_meeting,
    candidates,
    choose,
)
from research.agent.question.lexicon import ASKS_AGAINST, POLICY_RATES, metrics_asked
from research.agent.question.periods import Period, find_periods, mentions
from research.agent.question.understand import Understanding, understanding_from_dict, year_asked
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


def _level_line(c: Composer, cand: Candidate, u: Understanding, memo: dict[str, Any]) -> str | None:
    if u.metrics and not u.metrics[0].figured:
        return None  # "the policy stance: 25 basis points" would be another figure's
    found = anchor(cand.sentence, u)
    if found is None:
        return None
    figure = (found[1], found[2])
    label = u.metrics[0].label if u.metrics else "The figure"
    dated, measure = _described(cand.sentence, figure)
    when = ", ".join(t.label for t in u.targets) or dated
    period = f" ({when})" if when else ""
    ref = c.quote_claim(cand.passage, figure[0], figure[1], u.metrics[0].label if u.metrics else "figure", **memo)
    low = range_low(cand.sentence, found)
    if low is not None:  # "in the range of 6.8-7.1 per cent": both ends, not the upper one alone
        ref = f"between {c.quote_claim(cand.passage, low, '', f'low end of the {label} range')} and {ref}"
    return f"{label[:1].upper()}{label[1:]}{period}: {ref}{measure}, according to {document_name(cand.passage)}."


def _figures_line(c: Composer, picked: list[tuple[Candidate, str, str]], u: Understanding) -> str:
    """“The figures asked: 500 employees and 4 per cent, according to …” — each a quote claim on its sentence."""
    refs = [c.quote_claim(cand.passage, num, unit, "figure asked", **level_memo(u, cand)) for cand, num, unit in picked]
    docs = list(dict.fromkeys(document_name(cand.passage) for cand, _, _ in picked))
    what = "The figure asked" if len(refs) == 1 else "The figures asked"
    line = f"{what}: {' and '.join(refs)}, according to {' and '.join(docs)}."
    quoted: list[str] = []
    for cand, num, _ in picked:  # each sentence once, cut around its figure
        if cand.sentence not in quoted:
            quoted.append(cand.sentence)
            text = excerpt(cand.sentence, num)
            line += f" “{text}” {c.cite(cand.passage, text)}"
    return line


def _vote_line(c: Composer, passage: dict[str, Any], table: VoteTable) -> str:
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


def _direct_line(c: Composer, ev: Evidence, u: Understanding) -> str | None:
    lines: list[str] = []
    figure_asked = u.aspects & {"change", "level"}
    for cand in ev.chosen:
        if not figure_asked or c.figures:
            break
        memo = level_memo(u, cand)
        # "What did the MPC decide?" names no metric: the decision quoted names it ("… the policy repo rate").
        metric = u.metrics[0] if u.metrics else next(iter(metrics_asked(cand.sentence)), None)
        asks_move = "change" in u.aspects or asks_if_kept(c.question)
        decision = decision_line(c, cand, metric, memo) if metric and asks_move else None
        if decision and other_move(c.question, decision[1]):
            c.outcome = "escalate"  # "When did the MPC last raise the rate?" is not answered by a hold
            return None
        line = verdict(c.question, decision[1]) + decision[0] if decision else None
        lines.append(line or _level_line(c, cand, u, memo) or "")
    if ev.table is not None:
        lines.append(_vote_line(c, *ev.table))
    return " ".join(x for x in lines if x) or None


def _level_lead(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> Callable[[], None] | None:
    """ "What was the repo rate after the August 2019 meeting and how many members voted for 35 basis
    points?": the rate's line and its sentence, which the magnitude counts follow (None when the
    question asks no level beside the count)."""
    if "level" not in u.aspects or not asks_magnitude_count(c.question):
        return None

    def lead() -> None:
        chosen = choose(c.question, u, passages)
        if chosen is None:
            return
        ev = dataclasses.replace(chosen, table=None)  # the vote table is quoted with the counts
        if line := _direct_line(c, ev, u):
            c.parts.append(line)
            _quote_evidence(c, ev)

    return lead


def _quote_evidence(c: Composer, ev: Evidence) -> None:
    for cand in ev.chosen:
        c.quote(cand.passage, cand.sentence, "figure", figure_claim=False)
    if ev.table is not None:
        passage, table = ev.table
        caption = table.caption if len(table.text) > 600 else table.text
        c.parts.append(f"“{caption}” {c.cite(passage, caption)}")


def _other_period_line(c: Composer, question: str, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """Evidence for the metric exists, but for another period than the one asked: say so."""
    asked = u.targets[0]
    relaxed = Understanding(metrics=u.metrics, aspects={"level"}, doc_types=u.doc_types, mine=u.mine)
    ev = choose(question, relaxed, passages)
    if ev is None or not ev.chosen or (u.metrics and not ev.chosen[0].metric_ok):
        return False
    cand = ev.chosen[0]
    other = [p for p in find_periods(cand.sentence) if p.kind == asked.kind and not mentions(cand.sentence, asked)]
    if not other:
        return False  # no figure for a named other period: escalate rather than guess
    found = other[0].label
    shifted = Understanding(metrics=u.metrics, targets=other[:1], aspects={"level"})
    figure = anchor_figure(cand.sentence, shifted)
    if figure is None:
        return False  # the sentence dates the metric to another period but states no figure of it
    what = u.metrics[0].label if u.metrics else "this figure"
    ref = c.quote_claim(cand.passage, *figure, what, answers=False, target=found)
    c.parts.append(
        f"The library has the {what} for {found} ({ref}, in {document_name(cand.passage)}), not for {asked.label}."
    )
    c.quote(cand.passage, cand.sentence, what, figure_claim=False)
    c.outcome = "no_document"
    return True


def _no_document(c: Composer, info: dict[str, Any]) -> None:
    asked = info.get("asked") or "the period asked"
    what = info.get("family") or ("uploaded note" if info.get("mine") else "document")
    text = f"The library has no {what} for {asked}; I did not answer from another period."
    nearest = [d["title"] for d in (info.get("before"), info.get("after")) if d]
    if nearest:
        text += " The nearest it has: " + " and ".join(nearest) + "."
    c.parts.append(text)
    c.outcome = "no_document"


def _not_named(c: Composer, name: str) -> None:
    """The question is about ``name`` ("Microsoft's Azure revenue", "the Federal Open Market
    Committee") and no passage found names it: another company's or central bank's figures would
    trace perfectly and answer nothing."""
    named = f"the {name}" if re.search(rf"\bthe {re.escape(name)}", c.question, re.I) else name
    c.parts.append(
        f"I found nothing on {named} in the library: no passage found for this question names it, "
        "so I did not answer from other documents."
    )
    c.outcome = "no_document"


def compose_documents(c: Composer, key: str, out: dict[str, Any]) -> None:
    """The rag_search result ``out`` as a direct answer line and quoted evidence."""
    u = understanding_from_dict(out.get("understanding") or {})
    if out.get("no_document"):
        _no_document(c, out["no_document"])
        return
    passages = out.get("passages") or []
    if compose_statements(c, out):
        if "why" in u.aspects:
            compose_drivers(c, passages)  # "What drove …?": the filing's own sentence on why the line moved
        return  # answered from statement cells (research/agent/compose/statements/dispatch.py)
    if passages and (missing := names_missing(c.question, passages)):
        _not_named(c, missing[0])
        return
    if compose_stance(c, passages):
        return  # "Did the MPC change its stance …?": the committee's decision, yes or no
    if compose_governor(c, u, passages):
        return  # "Who was the RBI Governor in 2017?": each meeting's chair, from its own minutes
    if compose_member(c, passages):
        return  # "Why did Prof. Varma vote for a cut?": the member's own statement
    if compose_member_vote(c, passages):
        return  # "Did Prof. Varma vote to cut the rate?": yes or no from how the minutes say the member voted
    if compose_magnitude_count(c, passages, lead=_level_lead(c, u, passages)):
        return  # "How many members voted for 35 basis points …?": the magnitude column
    if compose_vote_count(c, passages):
        return  # "How many members voted for a rate cut?": the side of the vote table that did, named
    if compose_topic(c, u, passages):
        return  # "What did the MPC say about crude oil prices?": the sentences that name them
    if compose_topic_absent(c, u, passages):
        return  # "… about cryptocurrency?": no passage names it, said so
    if compose_projection_change(c, u, passages):
        return  # "How did the … projection change between the February and August 2019 minutes?"
    if compose_revision(c, u, passages):
        return  # "By how much was the … projection revised down …?": both figures and their difference
    if _latest_projection(c, u, passages):
        return  # "What is the CPI inflation projection for 2024-25?": the latest resolution's
    if _each_metric(c, u, passages):
        return  # "What were the SDF and MSF rates …?": each rate from its own sentence
    if each_meeting(c, u, passages) or _each_meeting_level(c, u, passages):
        return  # "What was the repo rate in 2019?": each of the year's meetings' decisions (or levels)
    ev = choose(c.question, u, passages)
    if ev is None:
        c.parts.append("[Note: the library has no passage about this.]")
        c.outcome = "escalate"
        return
    if u.targets and not ev.target_found and _other_period_line(c, c.question, u, passages):
        return
    picked = [] if u.metrics or ev.table is not None else pick_figures(c.question, candidates(c.question, u, passages))
    line = _figures_line(c, picked, u) if picked else _direct_line(c, ev, u)
    if line:
        c.parts.append(line)
    if not picked:
        _quote_evidence(c, ev)
    c.assessment = {"uncovered": sorted(ev.uncovered), "metric_found": ev.metric_found, "target_found": ev.target_found}
    if picked:
        c.assessment["passage_figures"] = True  # each figure asked, of its unit, from the best-matching sentence
    if (u.metrics and not ev.metric_found) or (u.aspects & {"change", "level"} and not c.figures and not ev.table):
        c.outcome = "escalate"


def _latest_projection(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A fiscal year's projection asked with no meeting named: the latest meeting searched for it
    (tool_nodes._projections_of_year) whose own words, not a member's, project the metric for that
    year. Whichever meeting ranked first had answered: February 2024's member gave 2024-25's CPI
    inflation at 4.6 per cent, where August 2024's resolution projects 4.5."""
    searched = [p for p in passages if p.get("projection_search") and not p.get("in_statement")]
    by_date: dict[str, list[dict[str, Any]]] = {}
    for passage in searched:
        by_date.setdefault(str(passage.get("doc_date") or ""), []).append(passage)
    for date in sorted(by_date, reverse=True):
        projected = [
            cand
            for cand, found in own_levels(c.question, u, by_date[date])
            if cand.target_ok and projects_now(cand.sentence, found)
        ]
        best = max(projected, key=lambda cand: cand.score, default=None)
        line = _level_line(c, best, u, level_memo(u, best)) if best is not None else None
        if best is not None and line:
            c.parts.append(line)
            c.quote(best.passage, best.sentence, "figure", figure_claim=False)
            return True
    return False


def _each_meeting_level(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A corridor rate asked over a calendar year ("What was the reverse repo rate in 2019?" had read
    February's alone): each meeting's level, in date order, from its own sentence. A meeting without
    one sends the answer to a reviewer."""
    year = year_asked(u, c.question)
    if year is None or year.kind != "year" or len(u.metrics) != 1 or u.metrics[0].key not in POLICY_RATES[1:]:
        return False
    meetings = meetings_of_year(passages, year)
    if len(meetings) < 2:
        return False
    undated = dataclasses.replace(u, targets=[], doc_periods=[])  # each meeting's own level, not the year's
    chosen: list[tuple[Candidate, Figure]] = []
    for document_id in meetings:
        own = [
            (cand, found)
            for cand, found in own_levels(
                c.question, undated, [p for p in passages if p.get("document_id") == document_id]
            )
            if not about_other_meeting(cand.sentence)
        ]
        if not own:
            c.outcome = "escalate"  # a meeting of the year without the rate: not the year's answer
            return False
        chosen.append(max(own, key=lambda pair: pair[0].score))
    label = u.metrics[0].label
    said = []
    for cand, found in chosen:
        ref = c.quote_claim(cand.passage, found[1], found[2], label, **level_memo(undated, cand))
        said.append(f"In {document_name(cand.passage)}, the {label} stood at {ref}.")
    c.parts.append(f"At each meeting of {year.label} whose minutes the library holds: {' '.join(said)}")
    for cand, _found in chosen:
        c.quote(cand.passage, cand.sentence, label, figure_claim=False)
    return True


def _each_metric(c: Composer, u: Understanding, passages: list[dict[str, Any]]) -> bool:
    """A level asked of two or more metrics: each metric's level line from the sentence the chooser
    picks for that metric alone (one figure labelled with another's name had read "SDF rate: 4.25 per
    cent" from "The MSF rate and the Bank Rate remain unchanged at 4.25 per cent"). A metric without
    one sends the answer to a reviewer."""
    if len(u.metrics) < 2 or u.aspects != {"level"}:
        return False
    quoted: list[Candidate] = []
    for metric in u.metrics:
        one = dataclasses.replace(u, metrics=[metric])
        ev = choose(c.question, one, passages)
        cand = ev.chosen[0] if ev is not None and ev.chosen and ev.metric_found else None
        line = _level_line(c, cand, one, level_memo(one, cand)) if cand is not None else None
        if cand is None or line is None:
            c.parts.append(f"[Note: I found no figure for the {metric.label} in the passages searched.]")
            c.outcome = "escalate"
            continue
        c.parts.append(line)
        quoted += [cand] if all(q.sentence != cand.sentence for q in quoted) else []
    for cand in quoted:  # each sentence once ("the MSF rate and the Bank Rate at 4.25 per cent")
        c.quote(cand.passage, cand.sentence, "figure", figure_claim=False)
    return True


def period_text(periods: list[Period]) -> str:
    return ", ".join(p.label for p in periods)
