"""Which figures of a sentence can be the level of the metric asked.

A sentence naming CPI inflation carries figures of other things too: a weight in the index
("weight: 45.9 per cent in CPI"), a bound ("above 5%"), a share of a group ("75 per cent of the core
CPI items"), a ratio to GDP, another metric's level ("CPI core … took it down to 3.4 per cent") and
the base a level is compared with ("… compared to about 40 per cent a year ago"). Used by the
evidence chooser (which sentences cover the level asked), the composer (which figure is read and how
it is labelled) and the relevance checks (whose figure was quoted, and for which fiscal year). Pure.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from research.agent.question.companies import FORWARD_RE
from research.agent.question.lexicon import POLICY_RATES, Metric, owners_before
from research.agent.question.periods import MONTH_ALT, Period, find_periods
from research.agent.text.sentences import WEIGHT_BEFORE, figures_in

Figure = tuple[int, str, str]  # (offset in the sentence, number, unit)

_SHARE_OF = re.compile(r"\s*(?:per\s?cent|percent|%)\s+of\s+(?:the|all|total|its|these|those)\b", re.I)
_OF_GDP_AFTER = re.compile(r"\s*(?:per\s?cent|percent|%)\s+of\s+(?:nominal\s+)?GDP\b", re.I)
_INFLATION = {"cpi", "core_inflation", "food_inflation"}
_RATES_OF_CHANGE = {"gdp", "gva", "cpi", "core_inflation", "food_inflation", "credit_growth"}
# A fall told in words: "a contraction of 7.5 per cent in real GDP" is growth of −7.5 per cent, so the
# figure as written is no level of growth (shown bare, it would read as growth of 7.5 per cent).
_FALL_BEFORE = re.compile(
    r"\b(?:contraction|decline|fall|drop)\s+of\s*$|\b(?:contracted|declined|fell|shrank)\s+by\s*$", re.I
)
_GROWTH = {"gdp", "gva", "credit_growth"}
# Only a comparison: a cap ("a discount of up to 15%") can be the very figure asked for. "Sub-7 per
# cent" is below 7 too.
_BOUND_BEFORE = re.compile(r"(?:\b(?:above|below|over|under|more than|less than)\s*|\bsub-)$", re.I)
# What a level is compared with: "compared to about 40 per cent a year ago", "as against 5.7 per cent",
# "from 5.1 per cent in February to 4.8 per cent in April 2024" (the level is where it went).
_BASE_BEFORE = re.compile(
    r"\b(?:compared (?:to|with)|as against|from)\s+(?:about |around |nearly |roughly |over )?$", re.I
)
_BASE_AFTER = re.compile(
    r"\s*(?:per\s?cent|percent|%)?\s*(?:a year (?:ago|earlier)|last year|in the (?:previous|preceding) year)\b", re.I
)
# "the medium-term target for consumer price index (CPI) inflation of 4 per cent within a band of +/- 2
# per cent": the goal and its band, not a reading.
_TARGET_AFTER = re.compile(r"\s*(?:per\s?cent|percent|%)\s+(?:inflation\s+)?target\b", re.I)
_TARGET_BEFORE = re.compile(r"\b(?:target|band)\b[^\d;]{0,80}?\b(?:of|at)\s+(?:\+/-\s*|±\s*)?$", re.I)
# A policy rate's level is said of the rate: "the SDF rate remains unchanged at 6.25 per cent", "keep
# the policy repo rate … unchanged at 6.50 per cent". A figure before which no rate is named ("net
# income … increased by 5.73 per cent … under LAF/ MSF/ SDF"; a chart's axis, "28-Mar-24Per cent …
# SDF Rate"), or one said of the facility, not its rate ("absorption under the SDF … while the
# remaining 22 per cent was absorbed through VRRR auctions"), is no level of it. The rate may be named
# well before ("reduce the policy repo rate under the liquidity adjustment facility (LAF) by 25 basis
# points from 6.50 per cent to 6.25 per cent"), and decimal points do not end the clause.
_RATE_BEFORE = re.compile(r"\brate\b[^;]{0,160}$", re.I)


def _after(sentence: str, figure: Figure) -> str:
    return sentence[figure[0] + len(figure[1]) :]


def level_figures(sentence: str, metrics: list[Metric]) -> list[Figure]:
    """The figures of ``sentence`` that can be the level of ``metrics[0]`` (any figure when none is
    asked), in sentence order: not a weight, a bound, a share of a group, a ratio to GDP for a rate of
    change, a target or its band (unless the target is asked), nor a figure of another metric named
    nearer before it."""
    by_gdp = not any(m.key in _RATES_OF_CHANGE for m in metrics)
    asked = {m.key for m in metrics}
    return [
        f
        for f in figures_in(sentence)
        if not WEIGHT_BEFORE.search(sentence[: f[0]])
        and not _BOUND_BEFORE.search(sentence[: f[0]])
        and not (asked & _GROWTH and _FALL_BEFORE.search(sentence[: f[0]]))
        and not _SHARE_OF.match(_after(sentence, f))
        and (by_gdp or not of_gdp(sentence, f))
        and _of_metric_asked(sentence, f, asked)
        and _said_of_the_rate(sentence, f, asked)
    ]


def _said_of_the_rate(sentence: str, figure: Figure, asked: set[str]) -> bool:
    """For policy rates asked, whether ``figure`` follows a rate it belongs to (``_RATE_BEFORE``)."""
    if not asked or not asked <= set(POLICY_RATES):
        return True
    return bool(owners_before(sentence, figure[0])) and bool(_RATE_BEFORE.search(sentence[: figure[0]]))


def locate(sentence: str, number: str, unit: str | None = None) -> Figure | None:
    """The first figure of ``sentence`` that is ``number`` (in ``unit``, when given): where a figure
    read or quoted stands, so the words around it can be read."""
    return next((f for f in figures_in(sentence) if f[1] == number and unit in (None, f[2])), None)


# The low end of a range whose high end is the figure after it: "6.8-7.1 per cent", "between 6.8 and 7.1 per cent".
_RANGE_LOW = re.compile(r"(?:\bbetween\s+(\d+(?:\.\d+)?)\s+and|(?<![\d.])(\d+(?:\.\d+)?)\s*(?:-|–|to))\s*$", re.I)


def range_low(sentence: str, figure: Figure) -> str | None:
    """The low end of the range ``figure`` ends ("in the range of 6.8-7.1 per cent" → "6.8"): the
    figure alone is no level, the range is."""
    m = _RANGE_LOW.search(sentence[: figure[0]])
    if m is None or re.search(r"\bfrom\s*$", sentence[: m.start()], re.I):
        return None  # "rose from 5.1 to 6.0 per cent" is a move, not a range
    return m.group(1) or m.group(2)


def owned_by_other(sentence: str, number: str, metrics: list[Metric]) -> bool:
    """Whether the figure ``number`` of ``sentence`` is another metric's than those asked (the
    verifier's reading of a quoted figure, whichever engine chose it)."""
    figure = locate(sentence, number)
    return bool(metrics) and figure is not None and not _of_metric_asked(sentence, figure, {m.key for m in metrics})


def _of_metric_asked(sentence: str, figure: Figure, asked: set[str]) -> bool:
    """An inflation target is no reading of inflation ("the medium-term target for … inflation of 4 per
    cent"), whichever metric is named nearest before it; any other figure is the metric's named nearest
    before it."""
    if _is_target(sentence, figure):
        if "inflation_target" in asked:
            return True
        if asked & _INFLATION:
            return False  # "the medium-term target for CPI inflation of 4 per cent" is no reading of inflation
    return _owned(sentence, figure, asked)


def _is_target(sentence: str, figure: Figure) -> bool:
    return bool(_TARGET_BEFORE.search(sentence[: figure[0]]) or _TARGET_AFTER.match(_after(sentence, figure)))


def _owned(sentence: str, figure: Figure, asked: set[str]) -> bool:
    owners = owners_before(sentence, figure[0])
    return not asked or not owners or any(key in asked for key in owners)


def of_gdp(sentence: str, figure: Figure) -> bool:
    """Whether ``figure`` is measured by GDP ("24.1 per cent of GDP")."""
    return bool(_OF_GDP_AFTER.match(_after(sentence, figure)))


def is_base(sentence: str, figure: Figure) -> bool:
    """Whether ``figure`` is what a level is compared with, not the level: "compared to about 40 per
    cent a year ago", "from 5.1 per cent … to 4.8 per cent"."""
    return bool(_BASE_BEFORE.search(sentence[: figure[0]]) or _BASE_AFTER.match(_after(sentence, figure)))


# A question that asks what happened ("what was CPI inflation in 2023-24") names no forecast; a figure
# its sentence projects ("CPI inflation was projected at 5.2 per cent for 2023-24"), or a survey's
# expectation ("the median … estimated from the survey is 4.5 per cent"), is what was expected.
ASKS_FORECAST = re.compile(rf"\bproject(?:s|ion)?\b|\bsurvey|{FORWARD_RE.pattern}", re.I)
PROJECTED_BEFORE = re.compile(
    r"\b(?:projects|projected|projections?|forecast(?:s|ed|ers?|er’s|er's)?|survey|expected to)\b", re.I
)


def projection_year(question: str, metrics: list[Metric], targets: list[Period], named: bool) -> Period | None:
    """The fiscal year whose projection of one metric the question asks, when it names no meeting
    (``named``: a document period, an issuer): "What is the CPI inflation projection for 2024-25?"
    Every meeting from about a year before that year to its end revises it; the answer is the latest."""
    if named or len(metrics) != 1 or not metrics[0].figured or len(targets) != 1 or targets[0].kind != "fy":
        return None
    return targets[0] if ASKS_FORECAST.search(question) else None


def projecting_meetings(year: Period, dates: list[dt.date]) -> list[dt.date]:
    """Of the meeting ``dates``, those that may project fiscal ``year`` (from fourteen months before
    it begins to a month after it ends), latest first."""
    first = year.start.replace(year=year.start.year - 1) - dt.timedelta(days=61)
    last = year.end + dt.timedelta(days=31)
    return sorted((d for d in dates if first <= d <= last), reverse=True)


# "is revised downwards from 7.0 per cent in the June policy to 6.9 per cent": the meeting's own
# projection; "In the MPC's June resolution, real GDP growth … was projected at 7.0 per cent": another's.
_REVISED_NOW = re.compile(r"\b(?:is|are|has been|have been) (?:\w+ )?revised\b", re.I)
_PROJECTED_BEFORE_NOW = re.compile(r"\b(?:was|were|had been) (?:\w+ )?(?:projected|estimated|forecast)\b", re.I)


def projects_now(sentence: str, figure: Figure) -> bool:
    """Whether the sentence gives ``figure`` as its meeting's own projection (projected or revised
    to it), not as one an earlier meeting made."""
    before = sentence[: figure[0]]
    return (is_projection(sentence, figure) or bool(_REVISED_NOW.search(before))) and not (
        _PROJECTED_BEFORE_NOW.search(before)
    )


def is_projection(sentence: str, figure: Figure) -> bool:
    """Whether the sentence projects ``figure`` (or reports it as a survey's expectation)."""
    return bool(PROJECTED_BEFORE.search(sentence[: figure[0]]))


# The words between a figure and the period that dates it: "4.8 per cent in April 2024", "24.1 per cent
# of GDP at end-March 2024", "7.2 per cent (in April 2019)".
DATED_BY = re.compile(
    r"\s*(?:per\s?cent|percent|%)?(?:\s+of\s+(?:nominal\s+)?GDP)?\s*\(?\s*(?:in|during|for|at|as at|as on)\s+(?:end-)?",
    re.I,
)
# A bracket after the period that narrows it: "during 2023-24 (April-December)", "2023-24 (RE)".
_NARROWED = re.compile(rf"\s*\((?:{MONTH_ALT}|Q[1-4]|H[12]|RE|BE|PA)\b", re.I)


def dated_after(sentence: str, figure: Figure) -> Period | None:
    """The period the sentence dates ``figure`` by, right after it ("4.9 per cent in October 2023"),
    unless a bracket narrows it ("8.2 per cent during 2023-24 (April-December)")."""
    end = figure[0] + len(figure[1])
    return next(
        (
            p
            for p in find_periods(sentence)
            if p.at > end
            and DATED_BY.fullmatch(sentence[end : p.at])
            and not _NARROWED.match(sentence[p.at + p.length :])
        ),
        None,
    )


# A figure in the bracket a period opens: "during January-February 2024 (5.1 per cent in each of the
# months)", "seen in December 2023 (5.7 per cent)"; the month a span starts from, before it.
_BRACKET_OPENS = re.compile(r"\s*\(\s*")
_SPAN_FROM = re.compile(rf"\b({MONTH_ALT})-$", re.I)


def dated_before(sentence: str, figure: Figure) -> Period | None:
    """The period whose bracket ``figure`` opens ("December 2023 (5.7 per cent)"), labelled with the
    month its span starts from ("January-February 2024")."""
    for p in find_periods(sentence):
        if p.at + p.length <= figure[0] and _BRACKET_OPENS.fullmatch(sentence[p.at + p.length : figure[0]]):
            start = _SPAN_FROM.search(sentence[: p.at])
            return dataclasses.replace(p, label=f"{start.group(1)}-{p.label}") if start else p
    return None


_FISCAL = ("fy", "quarter", "half")


def figure_period(sentence: str, figure: Figure) -> Period | None:
    """The fiscal year, or quarter or half of one, the sentence gives ``figure``: the one dating it
    right after it, else the nearest before it with no other figure between ("the gross fiscal
    deficit for 2023-24 (RE) stands at 5.90 per cent of GDP" is 2023-24's, though the sentence names
    2024-25 after it; "GDP growth for Q1:2019-20 is now projected … at 7.4 per cent" is the quarter's)."""
    after = dated_after(sentence, figure)
    if after is not None:
        return after if after.kind in _FISCAL else None
    return _fiscal_before(sentence, figure)


def _fiscal_before(sentence: str, figure: Figure) -> Period | None:
    """The fiscal period named nearest before ``figure``, with no other figure between."""
    before = [p for p in find_periods(sentence) if p.kind in _FISCAL and p.at + p.length <= figure[0]]
    if not before or any(before[-1].at < f[0] < figure[0] for f in figures_in(sentence)):
        return None
    return before[-1]


def figure_year(sentence: str, number: str) -> str | None:
    """The label of :func:`figure_period` for the figure ``number`` ("2023-24", "Q1 2019-20")."""
    at = locate(sentence, number)
    period = figure_period(sentence, at) if at is not None else None
    return period.label if period is not None else None


def of_fiscal_year_asked(sentence: str, figure: Figure, years: set[str]) -> bool:
    """Whether ``figure`` may be the level of one of the fiscal ``years`` asked: the sentence gives it
    no other fiscal year, nor a quarter or half of one ("3.1 per cent for Q2:2019-20" is not
    2019-20's), nor a month ("revised down from 7.4 per cent (in February 2019) to 7.2 per cent (in
    April 2019) … and to 6.9 per cent in the 3rd bi-monthly policy of August 2019": 7.2 is April's
    projection of the year, and a month's reading is not the year's either)."""
    if not years:
        return True
    dated = dated_after(sentence, figure)  # read once: figure_period would read it again
    if dated is not None:
        return dated.kind != "month" and (dated.kind not in _FISCAL or dated.label in years)
    period = _fiscal_before(sentence, figure)
    return period is None or period.label in years
