"""A figure's sign is part of it. "What was the GDP growth projection for 2020-21?" had been answered
"7.5 per cent", verified, from the December 2020 minutes' "real GDP growth is projected at (-)7.5 per
cent in 2020-21": the sign was read as punctuation and the verifier found "7.5" in the passage. Now
the figure reads "−7.5 per cent"; a claim of 7.5 on that passage is refused; "a contraction of 7.5
per cent" is no growth of 7.5; "is expected to be" is a projection. Sentences read by hand from the
PDF pages named (pypdfium2 text of ../shared/data/rbi/mpc-minutes). Pure, except the chat at the end."""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.text.sentences import display_figure, figures_in, plain_number
from research.agent.verify.claims import check_claim, render_text
from tests.research.agent.golden import Runner, outcome_of

# MPC minutes, December 2020, p. 3 and p. 2; October 2020, p. 3.
DECEMBER_2020 = (
    "Taking these factors into consideration, real GDP growth is projected at (-)7.5 per cent in 2020-21: (+)0.1 "
    "per cent in Q3:2020-21 and (+)0.7 per cent in Q4:2020-21; and (+)21.9 per cent to (+)6.5 per cent in "
    "H1:2021- 22, with risks broadly balanced (Chart 2)."
)
CONTRACTION = (
    "In India, the data release of the National Statistical Office (NSO) on November 27 showed a contraction of "
    "7.5 per cent in real GDP in Q2:2020-21 (July-September)."
)
OCTOBER_2020 = (
    "Taking into consideration the above factors and the uncertain COVID-19 trajectory, real GDP growth in 2020-21 "
    "is expected to be negative at (-)9.5 per cent, with risks tilted to the downside: (-)9.8 per cent in "
    "Q2:2020-21; (-)5.6 per cent in Q3; and 0.5 per cent in Q4."
)


def test_a_sign_written_before_a_figure_is_read_with_it() -> None:
    assert [f[1] for f in figures_in(DECEMBER_2020)] == ["(-)7.5", "(+)0.1", "(+)0.7", "(+)21.9", "(+)6.5"]
    assert [f[1] for f in figures_in("revised to (-) 6.6 per cent, -9.5 per cent and −4.5%")] == [
        "(-) 6.6",
        "-9.5",
        "−4.5",
    ]
    assert [f[1] for f in figures_in("in the range of 6.8-7.1 per cent")] == ["7.1"]  # a range's dash, no sign
    assert [plain_number(n) for n in ("(-)7.5", "(-) 6.6", "(+)0.1", "−4.5", "1,234.5")] == [
        "-7.5",
        "-6.6",
        "0.1",
        "-4.5",
        "1234.5",
    ]
    assert display_figure("(-)7.5", "per cent") == "−7.5 per cent"
    assert display_figure("(+)0.1", "per cent") == "+0.1 per cent"
    assert display_figure("6.50", "%") == "6.50 per cent"


def test_the_claim_carries_the_sign_and_the_verifier_refuses_it_dropped() -> None:
    passage = {"chunk_id": 7, "citation": "RBI MPC Minutes, December 2020, p. 3", "url": "/d/7", "document_id": 7}
    c = Composer("What was the GDP growth projection for 2020-21?")
    ref = c.quote_claim(passage, "(-)7.5", "per cent", "real GDP growth")
    (claim,) = c.claims
    assert (claim["value"], claim["display"], claim["quote_figure"]) == (-7.5, "−7.5 per cent", "(-)7.5")
    assert render_text(ref, c.claims) == "−7.5 per cent"
    assert (c.figures[0]["value"], c.figures[0]["quote_figure"]) == ("-7.5", "(-)7.5")
    texts = {7: DECEMBER_2020}
    assert check_claim(claim, {}, texts) is None
    dropped = {**claim, "value": 7.5, "display": "7.5 per cent", "quote_figure": "7.5"}
    assert "negative" in str(check_claim(dropped, {}, texts))
    # A figure the passage also writes unsigned is that figure: Q4's "0.5 per cent" in October's sentence.
    assert (
        check_claim({**dropped, "value": 0.5, "display": "0.5 per cent", "quote_figure": "0.5"}, {}, {7: OCTOBER_2020})
        is None
    )


@pytest.mark.parametrize(
    ("sentence", "question", "figure"),
    [
        (CONTRACTION, "What was real GDP growth in 2020-21?", None),  # a contraction, and Q2's
        (DECEMBER_2020, "What was the GDP growth projection for 2020-21?", ("(-)7.5", "per cent")),
    ],
)
def test_a_fall_in_words_is_no_level_of_growth(sentence: str, question: str, figure: tuple[str, str] | None) -> None:
    from research.agent.evidence.anchors import anchor_figure
    from research.agent.question.understand import understand

    assert anchor_figure(sentence, understand(question, [])) == figure


def test_expected_to_be_is_a_projection() -> None:
    from research.agent.evidence.levels import is_projection, locate

    figure = locate(OCTOBER_2020, "(-)9.5")
    assert figure is not None and is_projection(OCTOBER_2020, figure)


def test_the_chat_reads_a_negative_projection(
    demo_library: dict[str, Any], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    runner = Runner(make_user, django_capture_on_commit_callbacks, demo_library)
    user = make_user("analyst")
    turn = runner.ask(user, "What GDP growth did the MPC project for 2020-21 in December 2020?", None)
    assert render_text(turn.answer, turn.claims).startswith(
        "Real GDP growth (2020-21): −7.5 per cent, according to RBI MPC Minutes, December 2020."
    )
    assert turn.verification["status"] == "verified"
    # The library's 2020-21 figures are projections or a quarter's contraction: a reviewer gets it, and
    # the draft never reads a growth of 7.5 per cent.
    outcome = runner.ask(user, "What was real GDP growth in 2020-21?", None)
    assert outcome_of(outcome) == "escalated"
    assert "(2020-21): 7.5 per cent" not in render_text(outcome.answer, outcome.claims)
