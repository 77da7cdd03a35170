"""Does the answer answer the question? The second half of "verified".

``verify/claims.py`` proves every figure traces to its source. That is not enough: a figure for the
wrong year, from the wrong document, about the reverse repo instead of the repo, traces perfectly.
Before a turn is marked verified, :func:`assess` checks the evidence the answer cites against what
the question asked, from the question's understanding and the cited passages' own metadata:

* **document** — every cited document matches the document period, family and owner the question
  named ("the August 2024 meeting", "our note");
* **period** — the quoted sentence carrying each answering figure names the target period asked
  ("Q3 2024-25"); a figure it dates to one month ("6.8 per cent in August") does not answer for a
  year or another month, nor one it dates to a day outside the period asked ("as on May 17, 2024"
  for end-March);
* **outcome** — a projection ("projected at 5.2 per cent") does not answer what happened;
* **metric** — that sentence names the metric asked (and not only a look-alike);
* **aspects** — the change, level, who, how many or why asked are each covered (a level in the
  metric's own unit: "20 basis points" is a move, not an inflation rate);
* **line** — an answer computed from statement cells reads the line the question names
  (:func:`research.agent.question.statements.asked_lines`), not a line beside it;
* **member** — what a member argued is quoted from that member's own statement, not from the
  resolution, the vote table or another member;
* **verdict** — a yes/no question is answered yes or no: a figure alone ("3 per cent" for "was
  more than half of GMV from the U.S.?") leaves the question open;
* **topic** — a question about a topic ("what did the MPC say about crude oil prices?") quotes a
  sentence that names it (``topics``);
* **subject** — an institution or segment the question names ("the Federal Open Market
  Committee", "Digital Media") is named by the passages cited (``names``): the RBI's reasons are
  not the Fed's.

Market answers: every ticker named has a figure. Pure: the caller passes the passages.
"""

from __future__ import annotations

import re
from typing import Any

from core.formatting import field_label
from research.agent.compose.composer import Composer
from research.agent.evidence.levels import ASKS_FORECAST, PROJECTED_BEFORE, figure_year, owned_by_other
from research.agent.evidence.members import asks_reasons, named, people
from research.agent.evidence.names import names_asked, names_missing
from research.agent.evidence.select import aspects_of, is_level
from research.agent.question.lexicon import POLICY_RATES, names_metric
from research.agent.question.library import LibDoc
from research.agent.question.periods import Period, mentions
from research.agent.question.statements import YES_NO, asked_lines, own_label
from research.agent.question.topics import names_topic, topic_asked, topic_phrase
from research.agent.question.understand import (
    Understanding,
    doc_matches,
    fiscal_year_of_meeting,
    mentions_doc,
    year_asked,
)
from research.agent.text.sentences import WEIGHT_BEFORE
from research.agent.verify.affirm import affirm, statement_check
from research.agent.verify.figure_context import around_figure, figure_day, figure_month
from research.packs import registry
from research.packs.dates import DATE_RE, first_date

Check = dict[str, Any]


def _document_check(u: Understanding, cited: list[dict[str, Any]]) -> Check | None:
    if not (u.doc_periods or u.doc_types or u.mine or u.issuers) or not cited:
        return None
    wrong = [p["citation"] for p in cited if not doc_matches(LibDoc.of_passage(p), u)]
    # "How did … change between the February and August 2019 minutes?": both meetings, or no answer.
    two = "change" in u.aspects and len(u.doc_periods) > 1
    unmet = [d.label for d in u.doc_periods if two and not any(mentions_doc(p, d, u) for p in cited)]
    asked = ", ".join(
        u.issuers
        + [f.label for f in u.fiscal]
        + [p.label for p in u.doc_periods]
        + (["your own uploads"] if u.mine else [])
        + [field_label(t) for t in u.doc_types]  # "MPC minutes", never the key
    )
    detail = f"cites {wrong[0]}, which is not the document asked for ({asked})" if wrong else f"cites {asked}"
    if unmet and not wrong:
        detail = f"cites no document of {', '.join(unmet)}, which the question compares ({asked})"
    return {"check": "document", "ok": not wrong and not unmet, "detail": detail}


def _figure_sentences(c: Composer) -> list[tuple[dict[str, Any], str]]:
    """(claim, the quoted text carrying its figure) for each answering quote claim."""
    pairs = []
    for claim in c.claims:
        if claim.get("kind") != "quote" or not str(claim.get("label", "")).strip():
            continue
        quotes = [x["quote"] for x in c.citations if x["chunk_id"] == claim.get("chunk_id")]
        carrying = [q for q in quotes if str(claim.get("quote_figure")) in q]
        if carrying:
            pairs.append((claim, carrying[0]))
    return pairs


def _own_dates(question: str, u: Understanding, cited: list[dict[str, Any]]) -> list[Any]:
    """Targets that are a day written out in the question ("after its agreement following June 2,
    2023") which is a cited filing's own period end (the 10-Q for the quarter ended June 2, 2023):
    they date the document, not the figure, so the sentence need not name them."""
    ends = {LibDoc.of_passage(p).period_end for p in cited} - {None}
    days = [d for m in DATE_RE.finditer(question) if (d := first_date(m.group(0))) is not None and d in ends]
    return [t for t in u.targets if t.kind == "month" and any(t.start <= day <= t.end for day in days)]


def _end_of(period: Period, question: str) -> bool:
    """Whether the question names ``period`` as a month's end ("at end-March 2024"): the day a
    stock is read, not a document. (Matched by the month's name: the understanding may have been
    read from the search query, so its positions are not the question's.)"""
    return period.kind == "month" and bool(re.search(rf"\bend[-\s]+{period.start:%b}", question, re.I))


def _dated_figure_check(u: Understanding, c: Composer, pairs: list[tuple[dict[str, Any], str]]) -> Check | None:
    """A figure the sentence dates to a day outside every period the question asks a figure for
    ("foreign exchange reserves at end-March 2024" answered "US$ 648.7 billion as on May 17, 2024")
    is for another day. The periods: the targets, a year, and a month written "end-March"; a month
    that names a meeting dates the document, not its figures."""
    asked = [*u.targets] + [p for p in u.doc_periods if p.kind in ("fy", "year") or _end_of(p, c.question)]
    days = [day for claim, quote in pairs if (day := figure_day(claim, quote))]
    outside = [day for day in days if not any(p.contains(day) for p in asked)]
    if not asked or not outside:
        return None
    detail = f"the figure is as on {outside[0]:%-d %B %Y}, not {asked[0].label}"
    return {"check": "period", "ok": False, "detail": detail}


def _month_figure_check(u: Understanding, c: Composer, pairs: list[tuple[dict[str, Any], str]]) -> Check | None:
    """A figure the sentence dates to one month answers for that month only: not for a year asked
    ("headline inflation in 2023-24" is not "6.8 per cent in August", though the figure traces and
    the document is the year's report), nor for another month ("in April 2024" is not "5.1 per
    cent in February", from "… from 5.1 per cent in February to 4.8 per cent in April 2024")."""
    months = [month for claim, quote in pairs if (month := figure_month(claim, quote))]
    if not months:
        return None
    if year := year_asked(u, c.question) or fiscal_year_of_meeting(u):
        return {"check": "period", "ok": False, "detail": f"the figure is for {months[0]}, not for {year.label}"}
    asked = [t for t in u.targets if t.kind == "month"]
    other = [m for m in months if asked and all(f"{t.start:%B}" != m for t in asked)]
    if not other:
        return None
    return {"check": "period", "ok": False, "detail": f"the figure is for {other[0]}, not for {asked[0].label}"}


# Words that make a month in the question a document's ("in the June 2024 minutes"), not a reading's.
_DOCUMENT_WORDS = re.compile(
    r"\b(?:"
    + "|".join(("minutes", "meetings?", "policy", "resolution", "review", "statement", "report", *registry.COMMITTEES))
    + r")\b",
    re.I,
)


def _year_figure_check(u: Understanding, c: Composer, pairs: list[tuple[dict[str, Any], str]]) -> Check | None:
    """A figure its sentence gives another fiscal year than the one asked is that year's: "the fiscal
    deficit target for 2024-25" is not "the gross fiscal deficit for 2023-24 (RE) stands at 5.90 per cent
    of GDP", though the sentence names the Union Budget 2024-25 after it. Nor is it a month's reading,
    asked with no meeting named: "headline CPI inflation in June 2024" is not "inflation rate was a
    high 6.4 per cent in 2023-24" (a member, in the June 2024 minutes)."""
    asked = sorted({p.label for p in [*u.targets, *u.doc_periods] if p.kind == "fy"})
    month = reading_month(u, c.question)
    years = [year for claim, quote in pairs if (year := figure_year(quote, str(claim.get("quote_figure"))))]
    wanted = asked or ([month.label] if month else [])
    other = [year for year in years if wanted and year not in asked]
    if not other:
        return None
    return {"check": "period", "ok": False, "detail": f"the figure is for {other[0]}, not for {wanted[0]}"}


def reading_month(u: Understanding, question: str) -> Period | None:
    """The month the question asks a reading in, naming no meeting or report and no forecast ("What
    was headline CPI inflation in June 2024?"): the month's meeting, whose latest reading may be of an
    earlier month, but no fiscal year's figure. A policy rate's month is its meeting's."""
    if not u.metrics or any(m.key in POLICY_RATES or not m.figured for m in u.metrics) or u.targets:
        return None
    if ASKS_FORECAST.search(question) or _DOCUMENT_WORDS.search(question):
        return None
    return next((p for p in u.doc_periods if p.kind == "month"), None)


def _projection_check(c: Composer, pairs: list[tuple[dict[str, Any], str]]) -> Check | None:
    """A projected figure does not answer what happened (research/agent/evidence/levels.py)."""
    if ASKS_FORECAST.search(c.question):
        return None
    projected = [claim for claim, quote in pairs if PROJECTED_BEFORE.search(around_figure(claim, quote)[0])]
    if not projected:
        return None
    return {"check": "outcome", "ok": False, "detail": "the figure is a projection, not the outcome asked"}


# One end of a range the sentence gives ("ranging from 7.6-8.4 per cent between January and June
# 2024", "a wide range of 3.3 per cent to 10.6 per cent") is not the value of any one period.
_RANGE_WORDS = re.compile(r"\b(?:rang(?:e|es|ed|ing)|between)\b", re.I)
_RANGE_AFTER = re.compile(r"^\s*(?:per\s?cent|percent|%)?\s*(?:-|–|to)\s*\d")
_RANGE_BEFORE = re.compile(r"\d\s*(?:per\s?cent|percent|%)?\s*(?:-|–|to)\s*$")


def _range_check(u: Understanding, c: Composer, pairs: list[tuple[dict[str, Any], str]]) -> Check | None:
    """One end of a range, or a weight in an index ("weight: 45.9 per cent in CPI"), is not the value
    asked. A question about a forecast or guidance may be answered by a range."""
    range_answers = u.guidance or bool(ASKS_FORECAST.search(c.question))
    for claim, quote in pairs:
        before, after = around_figure(claim, quote)
        if WEIGHT_BEFORE.search(before):
            return {"check": "level", "ok": False, "detail": "the figure is a weight in an index, not the value asked"}
        if range_answers or not _RANGE_WORDS.search(quote):
            continue
        if _RANGE_AFTER.match(after) or _RANGE_BEFORE.search(before):
            return {"check": "level", "ok": False, "detail": "the figure is one end of a range, not the value asked"}
    return None


def _evidence_checks(u: Understanding, c: Composer, cited: list[dict[str, Any]]) -> list[Check]:
    checks: list[Check] = []
    pairs = [p for p in _figure_sentences(c) if not str(p[0].get("label", "")).startswith("change in")]
    found = (
        _month_figure_check(u, c, pairs),
        _dated_figure_check(u, c, pairs),
        _year_figure_check(u, c, pairs),
        _projection_check(c, pairs),
        _range_check(u, c, pairs),
    )
    checks += [x for x in found if x]
    targets = [t for t in u.targets if t not in _own_dates(c.question, u, cited)]
    if targets and pairs:
        missing = [q for _, q in pairs if not all(mentions(q, t) for t in targets)]
        labels = ", ".join(t.label for t in targets)
        checks.append(
            {
                "check": "period",
                "ok": not missing,
                "detail": f"the evidence is not about {labels}" if missing else f"the evidence names {labels}",
            }
        )
    if u.metrics and pairs:
        # The quote names the metric, and the figure is its: not core inflation's beside a CPI mention.
        off = [
            q
            for claim, q in pairs
            if not any(names_metric(q, m) for m in u.metrics)
            or owned_by_other(q, str(claim.get("quote_figure")), u.metrics)
        ]
        label = u.metrics[0].label
        checks.append(
            {
                "check": "metric",
                "ok": not off,
                "detail": f"the quoted figure is not the {label}" if off else f"the evidence names the {label}",
            }
        )
    return checks


def _aspect_check(u: Understanding, c: Composer) -> Check | None:
    asked = set(u.aspects)
    if not asked or (asked == {"level"} and not u.metrics):
        return None
    covered: set[str] = set()
    for quote in (x["quote"] for x in c.citations):
        covered |= aspects_of(quote, u, True)
    if any(x.get("kind") == "table" for x in c.claims):
        covered |= {"who", "count"}
    # A quoted figure is a level in the metric's own unit: "20 basis points" is a move, not CPI inflation.
    percent = not u.metrics or u.metrics[0].percent
    quoted_levels = [f for f in c.figures if f.get("chunk_id") is not None and is_level(str(f.get("unit")), percent)]
    if quoted_levels or any(x.get("kind") == "cell" for x in c.claims):
        covered.add("level")
    if c.assessment.get("statement_answer"):
        # Answered from statement cells by the operation the question asks (a value, a ratio, growth
        # computed by the calculator): "how much did … spend" is the amount, "how much did … grow" the growth.
        covered |= {"level", "change", "count"}
    if c.assessment.get("member_statement") or c.assessment.get("member_vote"):
        covered |= asked  # what the member named argued or how the member voted, in the minutes' words
    if c.assessment.get("chair"):
        covered.add("who")  # the minutes' own words name who chaired each meeting (compose_chair)
    if c.assessment.get("stance_decision"):
        # The committee's decision on its stance, quoted: what the stance was, and whether it changed.
        covered |= {"change", "level"}
    if c.assessment.get("between_meetings"):
        covered |= {"level", "change"}  # each meeting's own figure, and the change computed (compose_change)
    if c.assessment.get("passage_figures"):
        # Each figure asked was read, in the unit asked, from the sentence that best matches the question.
        covered |= {"level", "change", "count"}
    missing = sorted(asked - covered)
    return {
        "check": "aspects",
        "ok": not missing,
        "detail": f"not answered: {', '.join(missing)}" if missing else f"answers {', '.join(sorted(asked))}",
    }


def _line_check(question: str, c: Composer, rows: list[dict[str, Any]]) -> Check | None:
    """Does the answer read the statement line the question names? Figures trace whatever line they
    sit on: the "Digital Media" line of subscription revenue ($3,418 million) traces as well as the
    "Total Digital Media revenue" line asked ($3,511 million), and so does a "2 %" quoted from the
    line below it in a passage. An answer that reads no cell of the line asked does not answer."""
    asked = asked_lines(question, rows)
    if not asked or not c.claims:
        return None
    lines = {(r["chunk_id"], r["line"]) for r in asked}
    read = [x for x in c.claims if x.get("kind") == "cell"]
    ok = any((x.get("chunk_id"), x.get("line")) in lines for x in read)
    name = own_label(asked[0])
    wrong = next((x for x in read if (x.get("chunk_id"), x.get("line")) not in lines), None)
    detail = (
        f"reads the line “{name}”"
        if ok
        else f"reads “{wrong['line']}”, not the line “{name}”"
        if wrong
        else f"reads no cell of the line “{name}”"
    )
    return {"check": "line", "ok": ok, "detail": detail}


def _member_check(c: Composer, passages: dict[int, dict[str, Any]]) -> Check | None:
    """What a member argued ("Why did Prof. Varma vote for a cut?", "What did the Governor say about
    inflation?") is answered by that member's own statement: the resolution's reasons, the vote
    table or another member's words are not the member's."""
    if not asks_reasons(c.question):
        return None
    texts = [str(p.get("text", "")) for p in passages.values()]
    # A person the question itself names ("Dr. Urjit Patel") counts even where no passage names them.
    member = named(c.question, people(texts), texts) or named(c.question, people([c.question]), texts)
    if member is None:
        return None
    ok = c.assessment.get("member_statement") == member
    detail = f"quotes {member}’s own statement" if ok else f"does not quote {member}’s own statement"
    return {"check": "member", "ok": ok, "detail": detail}


def _subject_check(question: str, cited: list[dict[str, Any]]) -> Check | None:
    asked = names_asked(question)
    if not asked or not cited:
        return None
    missing = names_missing(question, cited)
    detail = f"the passages cited never name “{missing[0]}”" if missing else f"the evidence names {', '.join(asked)}"
    return {"check": "subject", "ok": not missing, "detail": detail}


def _topic_check(c: Composer) -> Check | None:
    topic = topic_asked(c.question)
    if not topic or not c.citations:
        return None
    about = topic_phrase(c.question)
    ok = any(names_topic(x["quote"], topic) for x in c.citations)
    return {"check": "topic", "ok": ok, "detail": f"quotes on {about}" if ok else f"no sentence quoted names {about}"}


def _verdict_check(c: Composer) -> Check | None:
    if not YES_NO.search(c.question) or not c.parts:
        return None
    said = next((m for part in c.parts if (m := re.match(r"\s*(yes|no)\b", part, re.I))), None)
    return {
        "check": "verdict",
        "ok": said is not None,
        "detail": f"answers {said.group(1).lower()}" if said else "says neither yes nor no",
    }


def assess_market(question: str, c: Composer) -> dict[str, Any]:
    """A market or portfolio answer answers the question when every ticker it names has figures."""
    from research.agent.dialogue.planner import find_tickers

    named = [t.split(".")[0].lstrip("^") for t in find_tickers(question)]
    shown = {s.lstrip("^") for s in c.subjects}
    if not named or not shown:
        return {"ok": None, "checks": [], "outcome": c.outcome}
    missing = [t for t in named if t not in shown]
    detail = f"no figures for {', '.join(missing)}" if missing else f"figures for {', '.join(named)}"
    return {
        "ok": not missing,
        "checks": [{"check": "entity", "ok": not missing, "detail": detail}],
        "outcome": c.outcome,
    }


def assess(
    u: Understanding | None, c: Composer, passages: dict[int, dict[str, Any]], rows: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``{"ok": bool | None, "checks": [...]}`` — ``None`` when the answer cites no document (a
    market or calculator answer is judged by its tool outputs) or said the library has none.
    ``rows``: the statement rows the answer could read (for the line check)."""
    if u is None or c.outcome == "no_document":
        return {"ok": None, "checks": [], "outcome": c.outcome}
    cited_ids = dict.fromkeys(int(x["chunk_id"]) for x in c.citations)
    cited = [passages[i] for i in cited_ids if i in passages]
    found = (
        _document_check(u, cited),
        _aspect_check(u, c),
        _line_check(c.question, c, rows or []),
        _verdict_check(c),
        _member_check(c, passages),
        _subject_check(c.question, cited),
        _topic_check(c),
        statement_check(c),
    )
    checks = [x for x in found if x] + _evidence_checks(u, c, cited)
    ok = all(x["ok"] for x in checks) if checks else None
    return {"ok": ok, "checks": checks, "outcome": c.outcome, **affirm(c)}
