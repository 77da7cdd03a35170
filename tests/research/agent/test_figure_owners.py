"""A figure belongs to the metric named nearest before it, and a level is not the base it is compared
with, a target or a projection. "What was CPI inflation in April 2024?" had been answered "3.4 per cent",
verified, from "CPI core (CPI excluding food and fuel) disinflation took it down to 3.4 per cent in
February" (core inflation's); "headline CPI inflation in June 2024" "40 per cent" from "… compared to
about 40 per cent a year ago" (food's share of inflation a year before). Every sentence below was read
by hand from the PDF page named. Pure, except the chat over the shipped library at the end."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.question.lexicon import metrics_asked, owners_before
from tests.research.agent.golden import Runner

# MPC minutes, April 2024, p. 2.
CORE = (
    "CPI core (CPI excluding food and fuel) disinflation took it down to 3.4 per cent in February – this was "
    "one of the lowest in the current CPI series, with both goods and services components registering a fall "
    "in inflation."
)
# MPC minutes, October 2018, p. 2.
CORRIDOR = (
    "Consequently, the reverse repo rate under the LAF remains at 6.25 per cent, and the marginal standing "
    "facility (MSF) rate and the Bank Rate at 6.75 per cent."
)
# RBI Annual Report 2023-24, p. 41.
HOUSEHOLD = "Household goods and services inflation witnessed a gradual easing to 2.7 per cent in March 2024."
LABOURERS = (
    "Inflation based on the CPI for agricultural labourers (CPI-AL) and rural labourers (CPI-RL) averaged "
    "higher at 7.0 per cent and 6.9 per cent, respectively, during April-February 2023-24, primarily driven "
    "by elevated food inflation."
)
# MPC minutes, June 2024, p. 10; April 2024, p. 2 (the resolution's closing sentence).
SHARE = (
    "Food, with a weight of 45.9 per cent in CPI, contributed to three-fourths of the headline inflation in "
    "April 2024 compared to about 40 per cent a year ago."
)
TARGET = (
    "These decisions are in consonance with the objective of achieving the medium-term target for consumer "
    "price index (CPI) inflation of 4 per cent within a band of +/- 2 per cent, while supporting growth."
)
# MPC minutes, December 2023, p. 7 and p. 9.
FORECASTER = "Professional forecaster’s figure for core inflation in Q3 is at 4.4%."
OCTOBER = (
    "The moderation in CPI to 4.9 per cent in October 2023 was driven by the fall in food and core (CPI "
    "excluding food and fuel) inflation along with deflation in the fuel group."
)
SUB_SEVEN = (  # reserve_bank_of_india_02-04-2019.pdf p.12
    "Even if the horizon is extended to incorporate the projections for the first half of 2019-20, real GDP "
    "growth is still expected to be sub-7 per cent."
)
REVISIONS = (  # reserve_bank_of_india_05-08-2019.pdf p.12
    "GDP growth projection for 2019-20 has been successively revised down from 7.4 per cent (in February "
    "2019) to 7.2 per cent (in April 2019), 7.0 per cent (in June 2019) and to 6.9 per cent in the 3rd "
    "bi-monthly policy of August 2019."
)


def _owners(sentence: str, figure: str) -> list[str]:
    return owners_before(sentence, sentence.index(figure))


def test_a_figure_is_the_metrics_named_nearest_before_it_and_those_listed_with_it() -> None:
    assert _owners(CORE, "3.4") == ["core_inflation"]  # not CPI's, though "CPI" starts the sentence
    assert _owners(CORRIDOR, "6.25") == ["reverse_repo"]  # "reverse repo rate" is not the repo rate
    assert sorted(_owners(CORRIDOR, "6.75")) == ["bank_rate", "msf"]  # "the MSF rate and the Bank Rate at"
    assert _owners(HOUSEHOLD, "2.7") == ["not:cpi"]  # a group of the basket, not headline CPI
    assert _owners(LABOURERS, "7.0") == ["not:cpi"]  # another index
    assert _owners(OCTOBER, "4.9") == ["cpi"]
    assert _owners("Core (CPI excluding food and fuel) inflation eased further to 3.2 per cent", "3.2") == [
        "core_inflation"  # an aside in brackets is passed over (June 2024, p. 2)
    ]
    assert _owners("It rose to 4 per cent.", "4") == []


def test_a_measure_by_gdp_or_a_target_in_the_question_is_not_the_metric_asked() -> None:
    by_gdp = "What was the Reserve Bank's balance sheet size as a per cent of GDP at end-March 2024?"
    assert [m.key for m in metrics_asked(by_gdp)] == ["balance_sheet"]
    assert [m.key for m in metrics_asked(by_gdp.replace("a per cent", "a share"))] == ["balance_sheet"]
    assert [m.key for m in metrics_asked("What is the RBI's inflation target?")] == ["inflation_target"]
    assert [m.key for m in metrics_asked("What was CPI inflation in April 2024?")] == ["cpi"]


@pytest.mark.parametrize(
    ("sentence", "question", "figure"),
    [
        (CORE, "What was CPI inflation in April 2024?", None),
        (CORE, "What was core inflation in April 2024?", ("3.4", "per cent")),
        (CORRIDOR, "What was the MSF rate after the October 2018 meeting?", ("6.75", "per cent")),
        (CORRIDOR, "What was the reverse repo rate after the October 2018 meeting?", ("6.25", "per cent")),
        (HOUSEHOLD, "What was CPI inflation in March 2024?", None),
        (SHARE, "What was headline CPI inflation in June 2024?", None),  # a weight and a year-ago base
        (TARGET, "What was CPI inflation in April 2024?", None),  # a target and its band
        (TARGET, "What is the RBI's inflation target?", ("4", "per cent")),
        (OCTOBER, "What was CPI inflation in December 2023?", ("4.9", "per cent")),
        # Each earlier meeting's projection of the year is dated by its month; August's own is 6.9.
        (REVISIONS, "What was the GDP growth projection for 2019-20 in the August 2019 minutes?", ("6.9", "per cent")),
        (SUB_SEVEN, "What was the real GDP growth projection for 2019-20 in the April 2019 minutes?", None),  # a bound
    ],
)
def test_the_level_read_is_the_metric_asked(sentence: str, question: str, figure: tuple[str, str] | None) -> None:
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.understand import understand

    assert anchor_figure(sentence, understand(question, [])) == figure


def test_a_projection_covers_the_level_only_when_a_forecast_is_asked() -> None:
    from research.agent.evidence.select import candidates
    from research.agent.question.understand import understand

    passage = {"chunk_id": 1, "document_id": 1, "page_number": 7, "text": FORECASTER}
    outcome = "What was core inflation in December 2023?"
    forecast = "What did professional forecasters project for core inflation in Q3?"
    assert "level" not in candidates(outcome, understand(outcome, []), [passage])[0].covers
    assert "level" in candidates(forecast, understand(forecast, []), [passage])[0].covers


def test_the_chat_reads_the_metric_asked_and_labels_the_figure(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.agent.verify.claims import render_text

    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    april = runner.ask(user, "What was CPI inflation in April 2024?", None)
    text = render_text(april.answer, april.claims)
    # April 2024 minutes, p. 11: "CPI headline inflation during January-February 2024 (5.1 per cent in
    # each of the months) …"; never core inflation's 3.4 or the target's 4. The months it is for are named.
    assert text.startswith(
        "CPI inflation (January-February 2024): 5.1 per cent, according to RBI MPC Minutes, April 2024."
    )
    assert april.verification["status"] == "verified"
    december = runner.ask(user, "What was CPI inflation in December 2023?", None)
    assert render_text(december.answer, december.claims).startswith(
        "CPI inflation (October 2023): 4.9 per cent, according to RBI MPC Minutes, December 2023."
    )
    size = runner.ask(user, "What was the RBI's balance sheet size at end-March 2024?", None)
    assert render_text(size.answer, size.claims).startswith(
        "Balance sheet size (March 2024): 24.1 per cent of GDP, according to RBI Annual Report 2023-24."
    )
    # The annual report gives no SDF rate for the year in one sentence the chat reads; it had answered
    # "22 per cent" (p. 88: the share of absorption through VRRR auctions), verified. Now a reviewer sees it.
    sdf = runner.ask(user, "What was the SDF rate in 2023-24?", None)
    assert sdf.status == "escalated" and "22 per cent" not in render_text(sdf.answer, sdf.claims)


@pytest.mark.parametrize(
    ("question", "figure", "ok"),
    [
        ("What was CPI inflation in April 2024?", "3.4", False),  # core inflation's, whoever wrote it
        ("What was core inflation in April 2024?", "3.4", True),
    ],
)
def test_the_verifier_reads_whose_figure_was_quoted(question: str, figure: str, ok: bool) -> None:
    from research.agent.compose.composer import Composer
    from research.agent.question.understand import understand
    from research.agent.verify.relevance import assess

    passage = {"chunk_id": 5, "citation": "RBI MPC Minutes, April 2024, p. 2", "url": "/d/5", "document_id": 5}
    meta = {5: {"document_id": 5, "doc_type": "mpc_minutes", "citation": "RBI MPC Minutes, April 2024, p. 2"}}
    u = understand(question, [])
    c = Composer(question)
    c.parts.append(f"{u.metrics[0].label}: {c.quote_claim(passage, figure, 'per cent', u.metrics[0].label)}")
    c.quote(passage, CORE, u.metrics[0].label, figure_claim=False)
    checks = {x["check"]: x for x in assess(u, c, meta)["checks"]}
    assert checks["metric"]["ok"] is ok


# RBI Annual Report 2023-24, p. 60, p. 49 and p. 46 (read by hand).
DEFICIT = (
    "Accordingly, the gross fiscal deficit for 2023-24 (RE) stands at 5.90 per cent of GDP, as against the RE of "
    "5.85 per cent given in the interim Union Budget 2024-25."
)
LARGE = (
    "Credit growth to large industries was relatively muted (6.4 per cent), partly due to their improved "
    "profitability and cash flows."
)
M3 = (
    "II.4.10 On the sources side (assets), the expansion in M3 was mainly driven by bank credit to the commercial "
    "sector, which grew by 15.6 per cent in 2023-24 (14.4 per cent a year ago)."
)


def test_credit_growth_is_not_gdp_growth_nor_one_sectors_credit() -> None:
    from research.agent.compose.lines import _described
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.understand import understand

    asked = "What was credit growth in 2023-24 according to the annual report?"
    assert [m.key for m in metrics_asked(asked)] == ["credit_growth"]  # "growth" here is not GDP's
    assert [m.key for m in metrics_asked("What was the fiscal deficit target for 2024-25?")] == ["fiscal_deficit"]
    # Another quantity's growth is not GDP's ("GVA growth" had been answered with real GDP growth, verified).
    assert [m.key for m in metrics_asked("What was the GVA growth in Q4 2023-24?")] == ["gva"]
    assert [m.key for m in metrics_asked("What was Microsoft's Azure revenue growth in fiscal 2023?")] == []
    assert [m.key for m in metrics_asked("What growth did the MPC project for 2024-25?")] == ["gdp"]
    u = understand(asked, [])
    assert anchor_figure(LARGE, u) is None  # large industries' credit
    assert anchor_figure(M3, u) == ("15.6", "per cent")  # not the year-ago base in the bracket
    assert _described(M3, ("15.6", "per cent")) == ("2023-24", "")  # a bracket of figures does not narrow it
    gdp = "Real GDP growth was robust at 8.2 per cent during 2023-24 (April-December)."  # p. 15
    assert _described(gdp, ("8.2", "per cent")) == ("", "")  # "(April-December)" narrows the year


def test_a_figure_the_sentence_gives_another_fiscal_year_is_not_the_year_asked() -> None:
    from research.agent.compose.composer import Composer
    from research.agent.evidence.levels import figure_year
    from research.agent.question.understand import understand
    from research.agent.verify.relevance import assess

    assert figure_year(DEFICIT, "5.90") == "2023-24"  # named before it, though 2024-25 is named after
    assert figure_year(M3, "15.6") == "2023-24"
    assert figure_year("CPI inflation for 2024-25 is projected at 4.5 per cent with Q1 at 4.9 per cent.", "4.9") is None
    passage = {"chunk_id": 5, "citation": "RBI Annual Report 2023-24, p. 60", "url": "/d/5", "document_id": 5}
    meta = {5: {"document_id": 5, "doc_type": "annual_report", "citation": "RBI Annual Report 2023-24, p. 60"}}
    for question, ok in (
        ("What was the fiscal deficit target for 2024-25?", False),
        ("What was the fiscal deficit in 2023-24?", True),
    ):
        u = understand(question, [])
        c = Composer(question)
        c.parts.append(f"Fiscal deficit: {c.quote_claim(passage, '5.90', 'per cent', 'fiscal deficit')}")
        c.quote(passage, DEFICIT, "fiscal deficit", figure_claim=False)
        failed = [x for x in assess(u, c, meta)["checks"] if not x["ok"]]
        assert (not failed) is ok, failed
        if not ok:
            assert failed == [{"check": "period", "ok": False, "detail": "the figure is for 2023-24, not for 2024-25"}]


@pytest.mark.parametrize(("figure", "failed"), [("7.2", "the figure is for April, not for 2019-20"), ("6.9", None)])
def test_an_earlier_meetings_projection_dated_by_its_month_is_not_the_one_asked(
    figure: str, failed: str | None
) -> None:
    """Whichever engine quoted it: April's 7.2 does not answer what the August 2019 minutes project."""
    from research.agent.compose.composer import Composer
    from research.agent.question.understand import understand
    from research.agent.verify.relevance import assess

    question = "What was the GDP growth projection for 2019-20 in the August 2019 minutes?"
    citation = "RBI MPC Minutes, August 2019, p. 12"
    passage = {"chunk_id": 7, "citation": citation, "url": "/d/7", "document_id": 7}
    meta = {7: {"document_id": 7, "doc_type": "mpc_minutes", "citation": citation, "doc_date": "2019-08-07"}}
    c = Composer(question)
    c.parts.append(f"Real GDP growth (2019-20): {c.quote_claim(passage, figure, 'per cent', 'real GDP growth')}")
    c.quote(passage, REVISIONS, "real GDP growth", figure_claim=False)
    checks = [x["detail"] for x in assess(understand(question, []), c, meta)["checks"] if not x["ok"]]
    assert checks == ([failed] if failed else [])


def test_each_metric_asked_is_read_from_its_own_sentence() -> None:
    from research.agent.compose.composer import Composer
    from research.agent.compose.meetings import each_metric
    from research.agent.question.understand import understand

    # MPC minutes, April 2022, p. 2 (read by hand): the MSF sentence had been labelled the SDF rate.
    msf = "The marginal standing facility (MSF) rate and the Bank Rate remain unchanged at 4.25 per cent."
    sdf = (
        "The standing deposit facility (SDF) rate, which will now be the floor of the LAF corridor, will be at "
        "3.75 per cent."
    )
    passage = {"chunk_id": 1, "document_id": 1, "document_title": "RBI MPC Minutes, April 2022", "page_number": 2,
               "citation": "RBI MPC Minutes, April 2022, p. 2", "url": "/d/1", "text": f"{msf} {sdf}"}  # fmt: skip
    question = "What were the SDF and MSF rates after the April 2022 meeting?"
    c = Composer(question)
    assert each_metric(c, understand(question, []), [passage])
    lines = [p for p in c.parts if not p.startswith("“")]
    shown = [(x["label"], x["display"]) for x in c.claims]
    assert lines[0].startswith("Standing deposit facility (SDF) rate: [[c") and lines[1].startswith("Marginal")
    assert shown == [
        ("standing deposit facility (SDF) rate", "3.75 per cent"),
        ("marginal standing facility (MSF) rate", "4.25 per cent"),
    ]
    alone = Composer(question)  # without the SDF's sentence: the MSF's figure is not the SDF's
    assert each_metric(alone, understand(question, []), [{**passage, "text": msf}])
    assert alone.outcome == "escalate" and [x["display"] for x in alone.claims] == ["4.25 per cent"]
    assert not each_metric(Composer("What was the SDF rate?"), understand("What was the SDF rate?", []), [passage])


# RBI Annual Report 2023-24: p. 88 (III.22), p. 241 (XII.11) and the text PDFium reads from the
# chart on p. 89 (its axis dates run into its legend); August 2024 minutes, p. 1 and p. 2.
SDF_SHARE = (
    "During 2023-24, average absorption under the SDF at ₹0.90 lakh crore constituted 78 per cent of the "
    "average daily total absorption (₹1.16 lakh crore) under the LAF, while the remaining 22 per cent was "
    "absorbed through VRRR auctions – both main and fine-tuning operations (Chart III.3)."
)
NET_INCOME = (
    "Net income from domestic sources increased by 5.73 per cent from ₹83,328.72 crore in the year 2022-23 to "
    "₹88,101.12 crore in the year 2023-24 mainly on account of decrease in net outgo of interest under LAF/ MSF/ "
    "SDF in the current year as compared to previous year"
)
CHART_AXIS = "13-Mar-24 28-Mar-24Per cent Weighted Average Call Rate Repo Rate SDF Rate MSF Rate7.41"
DECIDED = "Keep the policy repo rate under the liquidity adjustment facility (LAF) unchanged at 6.50 per cent."
CORRIDOR_2024 = (
    "Consequently, the standing deposit facility (SDF) rate remains unchanged at 6.25 per cent and the "
    "marginal standing facility (MSF) rate and the Bank Rate at 6.75 per cent."
)


@pytest.mark.parametrize(
    ("question", "sentence", "levels"),
    [
        ("What was the SDF rate in 2023-24?", SDF_SHARE, []),  # a share of the facility's absorption
        ("What was the MSF rate in March 2024?", NET_INCOME, []),  # a rise in income; no rate named before
        ("What was the SDF rate in March 2024?", CHART_AXIS, []),  # an axis label, before any rate
        ("What is the policy repo rate?", DECIDED, ["6.50"]),
        ("What is the SDF rate?", CORRIDOR_2024, ["6.25"]),
        ("What are the MSF rate and the Bank Rate?", CORRIDOR_2024, ["6.75"]),
        ("What is the reverse repo rate?", CORRIDOR, ["6.25"]),
    ],
)
def test_a_policy_rate_s_level_is_said_of_the_rate(question: str, sentence: str, levels: list[str]) -> None:
    from research.agent.evidence.levels import level_figures

    assert [number for _, number, _ in level_figures(sentence, metrics_asked(question))] == levels


def test_a_rate_named_well_before_its_new_level_still_owns_it() -> None:
    from research.agent.evidence.levels import level_figures

    # February 2019 minutes, p. 1 (the resolution).
    cut = (
        "reduce the policy repo rate under the liquidity adjustment facility (LAF) by 25 basis points from "
        "6.50 per cent to 6.25 per cent with immediate effect."
    )
    levels = level_figures(cut, metrics_asked("What was the repo rate?"))
    assert [n for _, n, unit in levels if unit == "per cent"] == ["6.50", "6.25"]
