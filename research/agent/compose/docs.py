"""The document answer on the deterministic engine: one direct answer line in plain words, then the
quoted evidence with its citations.

* A rate decision reads "In <the minutes of February 2019>, the policy rate was cut by 25 basis
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

import re
from typing import Any

from research.agent.compose.chain import steps_for
from research.agent.compose.composer import Composer, document_name
from research.agent.compose.drivers import compose_drivers
from research.agent.compose.lines import direct_line, figures_line, quote_evidence
from research.agent.compose.statements.dispatch import compose_statements
from research.agent.evidence.anchors import anchor_figure
from research.agent.evidence.names import names_missing
from research.agent.evidence.passage_figures import pick_figures
from research.agent.evidence.select import (
    candidates,
    choose,
)
from research.agent.question.periods import Period, find_periods, mentions
from research.agent.question.understand import Understanding, understanding_from_dict


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
    if any(step.compose(c, u, passages) for step in steps_for(passages)):
        return  # a composer of the registry answered (compose/chain.py: in order, the packs' where they read)
    ev = choose(c.question, u, passages)
    if ev is None:
        c.parts.append("[Note: the library has no passage about this.]")
        c.outcome = "escalate"
        return
    if u.targets and not ev.target_found and _other_period_line(c, c.question, u, passages):
        return
    picked = [] if u.metrics or ev.table is not None else pick_figures(c.question, candidates(c.question, u, passages))
    line = figures_line(c, picked, u) if picked else direct_line(c, ev, u)
    if line:
        c.parts.append(line)
    if not picked:
        quote_evidence(c, ev)
    c.assessment = {"uncovered": sorted(ev.uncovered), "metric_found": ev.metric_found, "target_found": ev.target_found}
    if picked:
        c.assessment["passage_figures"] = True  # each figure asked, of its unit, from the best-matching sentence
    if (u.metrics and not ev.metric_found) or (u.aspects & {"change", "level"} and not c.figures and not ev.table):
        c.outcome = "escalate"


def period_text(periods: list[Period]) -> str:
    return ", ".join(p.label for p in periods)
