"""What a member argued is answered from that member's own statement in the minutes, and the
committee's reasons from its resolution, never the one for the other.

The texts below are the shipped minutes' own words (June 2024: reserve_bank_of_india_05-06-2024.pdf,
p.1 and pp.7-11), read by hand; the expected sentences were chosen by reading the statements.
"""

from __future__ import annotations

from typing import Any

import pytest

from research.agent.compose.composer import Composer
from research.agent.evidence.members import (
    apart_from_statements,
    asks_reasons,
    member_asked,
    named,
    reasons,
    statement_of,
)
from research.agent.evidence.select import choose
from research.agent.question.understand import understand
from research.agent.verify.relevance import assess

ATTENDANCE = (
    "2. The meeting was attended by all the members – Dr. Shashanka Bhide, Honorary Senior Advisor; Dr. Ashima Goyal, "
    "Emeritus Professor; Prof. Jayanth R. Varma, Professor; Dr. Michael Debabrata Patra, Deputy Governor in charge "
    "of monetary policy – and was chaired by Shri Shaktikanta Das, Governor."
)
RESOLUTION = (
    "The MPC will remain resolute in its commitment to aligning inflation to the 4 per cent target on a durable "
    "basis. Accordingly, the MPC decided to keep the policy repo rate unchanged at 6.50 per cent in this meeting."
)
GOYAL_1 = (
    "Voting on the Resolution to keep the policy repo rate unchanged at 6.50 per cent Member Vote Dr. Ashima Goyal No "
    "Prof. Jayanth R. Varma No Statement by Dr. Ashima Goyal 36. Indian growth has outperformed expectations once "
    "again, suggesting it has strong roots. 37. The headline inflation projection of 4.5% for 2024-25 gives an average "
    "real repo rate of 2% implying that the real repo rate will be above neutral for too long if the repo rate stays "
    "unchanged."
)
GOYAL_2 = (
    "Goyal, A and A. Verma. 2022. Quarterly Review of Economics and Finance, 89 (June 2023): 369-393. "
    "49. A neutral stance is appropriate since the rate can then move in either direction as required. 50. In line "
    "with the above reasoning, I vote for a 25 basis points cut to the repo rate and a change in the stance to neutral."
)
# The next passage repeats the end of Goyal's (the chunker's overlap), then Varma's statement begins.
VARMA = (
    "50. In line with the above reasoning, I vote for a 25 basis points cut to the repo rate and a change in the "
    "stance to neutral. Statement by Prof. Jayanth R. Varma 51. This is an unacceptably high growth sacrifice "
    "considering that headline inflation is projected to be only about 0.5% above target. I therefore vote to reduce "
    "the repo rate by 25 basis points, and to change the stance to neutral."
)
PATRA = (
    "Statement by Dr. Michael Debabrata Patra 60. Economic activity in India is evolving broadly in line with the "
    "baseline projection. 61. Food prices are persisting for too long as the principal impediment to a faster "
    "disinflation. Food prices are holding back any consideration of possible changes in the monetary policy stance. "
    "Hence, I vote for keeping the policy rate and the stance of withdrawal of accommodation unchanged."
)
TEXTS = [ATTENDANCE, RESOLUTION, GOYAL_1, GOYAL_2, VARMA, PATRA]


def _minutes() -> list[dict[str, Any]]:
    return [
        {
            "chunk_id": 100 + i,
            "document_id": 7,
            "document_title": "RBI MPC Minutes, June 2024",
            "doc_type": "mpc_minutes",
            "pack": "central_bank",  # as the search tool gives it: the pack that reads the minutes
            "doc_date": "2024-06-21",
            "text": text,
            "page": str(page),
            "page_number": page,
            "citation": f"RBI MPC Minutes, June 2024, p. {page}",
            "url": f"/research/documents/7/?page={page}",
        }
        for i, (text, page) in enumerate(zip(TEXTS, [1, 3, 7, 9, 9, 11], strict=True))
    ]


def test_reasons_and_what_members_said_are_asked_but_not_figures() -> None:
    assert asks_reasons("Why did Prof. Varma vote for a cut?")
    assert asks_reasons("What did the Governor say about inflation?")
    assert not asks_reasons("What was the repo rate in June 2024?")


@pytest.mark.parametrize(
    ("question", "member"),
    [
        ("Why did Varma vote for a cut?", "Prof. Jayanth R. Varma"),
        ("What reasons did Dr. Ashima Goyal give?", "Dr. Ashima Goyal"),
        ("What did the Deputy Governor say about food prices?", "Dr. Michael Debabrata Patra"),
        ("What did the Governor say about growth?", "Shri Shaktikanta Das"),
        ("Why did the MPC keep the rate unchanged?", None),
        ("Why did Ashima vote for a cut?", None),  # a first name alone is not the surname
    ],
)
def test_the_member_asked_is_read_from_the_documents_own_names(question: str, member: str | None) -> None:
    names = ["Dr. Ashima Goyal", "Prof. Jayanth R. Varma", "Dr. Michael Debabrata Patra", "Shri Shaktikanta Das"]
    assert named(question, names, TEXTS) == member


def test_two_members_of_one_surname_are_not_guessed_between() -> None:
    names = ["Dr. Ravindra H. Dholakia", "Dr. Pami Dholakia"]
    assert named("Why did Dholakia vote against?", names, []) is None
    assert named("Why did Dr. Pami Dholakia vote against?", [*names, "Dr. Pami Dholakia"], []) == "Dr. Pami Dholakia"
    assert named("Why did Ravindra Dholakia vote against?", names, []) == "Dr. Ravindra H. Dholakia"


def test_a_statement_runs_from_its_heading_to_the_next_members_not_to_its_own_heading_repeated() -> None:
    ordered = _minutes()
    assert member_asked("Why did Goyal vote for a cut?", ordered) == "Dr. Ashima Goyal"
    goyal = statement_of("Dr. Ashima Goyal", ordered)
    assert [p["chunk_id"] for p in goyal] == [102, 103, 104]
    assert goyal[0]["text"].startswith("36. Indian growth")  # the vote table before the heading is not hers
    assert goyal[-1]["text"].endswith("change in the stance to neutral.")  # Varma's statement is not hers
    assert {p["statement_by"] for p in goyal} == {"Dr. Ashima Goyal"}
    patra = statement_of("Dr. Michael Debabrata Patra", [*ordered, {**ordered[5], "chunk_id": 106}])
    # The overlap repeats Patra's own heading in the next passage: his statement goes on through it.
    assert [p["chunk_id"] for p in patra] == [105, 106] and "Hence, I vote" in patra[1]["text"]


def test_a_heading_that_ends_its_passage_begins_the_statement_in_the_next() -> None:
    # April 2024, p. 4: the vote table, then "Statement by Dr. Shashanka Bhide"; "16. High growth …" opens
    # the next passage.
    ordered = [
        {**_minutes()[2], "text": "Shri Shaktikanta Das Yes Statement by Dr. Shashanka Bhide"},
        {
            **_minutes()[3],
            "text": "16. High growth and moderating inflation rates have marked the prevailing conditions.",
        },
    ]
    assert member_asked("What did Dr. Shashanka Bhide say about growth?", ordered) == "Dr. Shashanka Bhide"
    bhide = statement_of("Dr. Shashanka Bhide", ordered)
    assert [p["text"] for p in bhide] == ["", ordered[1]["text"]]


def test_the_reasons_are_the_members_reasoned_sentences_then_the_vote_never_a_footnote() -> None:
    goyal = statement_of("Dr. Ashima Goyal", _minutes())
    picked = [s for _, s in reasons("Why did Dr. Ashima Goyal vote for a cut?", goyal, "Dr. Ashima Goyal")]
    assert picked == [
        "The headline inflation projection of 4.5% for 2024-25 gives an average real repo rate of 2% implying that "
        "the real repo rate will be above neutral for too long if the repo rate stays unchanged.",
        "A neutral stance is appropriate since the rate can then move in either direction as required.",
        "In line with the above reasoning, I vote for a 25 basis points cut to the repo rate and a change in the "
        "stance to neutral.",
    ]
    footnotes = [
        {
            **_minutes()[3],
            "text": "Goyal, A and A. Verma. 2022. Quarterly Review of Economics and Finance, 89 (June 2023): 369-393. "
            "Available at: https://doi.org/10.1108/IJOEM-02-2020-0192. "
            "In line with the above reasoning, I vote for a cut.",
        }
    ]
    only_vote = ["In line with the above reasoning, I vote for a cut."]
    assert [s for _, s in reasons("Why?", footnotes, "Dr. Ashima Goyal")] == only_vote  # no reference is a reason
    patra = statement_of("Dr. Michael Debabrata Patra", _minutes())
    said = [s for _, s in reasons("What did Dr. Patra say about food prices?", patra, "Dr. Michael Debabrata Patra")]
    assert said == [
        "Food prices are persisting for too long as the principal impediment to a faster disinflation.",
        "Food prices are holding back any consideration of possible changes in the monetary policy stance.",
        "Hence, I vote for keeping the policy rate and the stance of withdrawal of accommodation unchanged.",
    ]  # "Hence, I vote" is not a footnote's "Goyal, A and …"


def test_the_committees_reasons_come_from_its_resolution_and_the_sentence_a_decision_refers_back_to() -> None:
    question = "Why did the MPC keep the repo rate unchanged in June 2024?"
    u = understand(question, [])
    marked = apart_from_statements(_minutes(), _minutes())
    assert [p["chunk_id"] for p in marked if p.get("in_statement")] == [103, 104, 105]
    assert "Statement by" not in marked[2]["text"] and marked[2]["text"].endswith("Prof. Jayanth R. Varma No")
    ev = choose(question, u, marked)
    assert ev is not None
    assert [c.sentence for c in ev.chosen] == [
        "The MPC will remain resolute in its commitment to aligning inflation to the 4 per cent target on a durable "
        "basis.",
        "Accordingly, the MPC decided to keep the policy repo rate unchanged at 6.50 per cent in this meeting.",
    ]
    # A member's "I vote … to ensure …" is that member's view, not the committee's reason.
    own_view = (
        "Accordingly, I vote to keep the policy repo rate unchanged to ensure that inflation aligns to the target."
    )
    alone = choose(question, u, [{**_minutes()[1], "text": own_view}])
    assert alone is not None and "why" in alone.uncovered
    # Nor is a member's reason in the third person (Dr. Goyal, April 2024, p. 6) once it is known to be in a statement.
    theirs = "This transience suggests it is not necessary to keep rates high because of expected future shocks."
    assert "why" not in choose(question, u, [{**_minutes()[1], "text": theirs}]).uncovered  # type: ignore[union-attr]
    inside = choose(question, u, [{**_minutes()[1], "text": theirs, "in_statement": True}])
    assert inside is not None and "why" in inside.uncovered


def test_a_member_asked_is_answered_only_by_that_members_own_statement() -> None:
    passages = {p["chunk_id"]: p for p in _minutes()}
    question = "Why did Prof. Jayanth R. Varma vote for a cut in June 2024?"
    u = understand(question, [])
    resolution = Composer(question)
    resolution.quote(passages[101], "Accordingly, the MPC decided to keep the policy repo rate unchanged.", "why")
    checks = {x["check"]: x for x in assess(u, resolution, passages)["checks"]}
    assert checks["member"] == {
        "check": "member",
        "ok": False,
        "detail": "does not quote Prof. Jayanth R. Varma’s own statement",
    }
    own = Composer(question)
    vote = "I therefore vote to reduce the repo rate by 25 basis points."
    own.quote(passages[104], vote, "member statement", figure_claim=False)  # as compose_member quotes
    own.assessment = {"member_statement": "Prof. Jayanth R. Varma"}
    result = assess(u, own, passages)
    assert result["ok"] is True and {x["check"] for x in result["checks"]} >= {"member", "aspects"}
    # A person the question names with an honorific, whom no passage names, is still asked about.
    patel = Composer("Why did Dr. Urjit Patel vote to cut in 2019?")
    patel.quote(passages[101], "Accordingly, the MPC decided to keep the policy repo rate unchanged.", "why")
    checks = {x["check"]: x for x in assess(understand(patel.question, []), patel, passages)["checks"]}
    assert checks["member"]["detail"] == "does not quote Dr. Urjit Patel’s own statement"
    # "Prof. Varma" in the question and "Prof. Jayanth R. Varma" in the passages are one member, not two.
    short = Composer("Why did Prof. Varma vote for a cut in June 2024?")
    short.quote(passages[101], "Accordingly, the MPC decided to keep the policy repo rate unchanged.", "why")
    checks = {x["check"]: x for x in assess(understand(short.question, []), short, passages)["checks"]}
    assert checks["member"]["detail"] == "does not quote Prof. Jayanth R. Varma’s own statement"


def test_who_voted_on_the_stance_is_read_from_the_stance_vote_never_the_rate_table() -> None:
    # June 2024, p. 3 (para 13) and p. 4 (the table, on the rate alone): read from the PDF by hand.
    stance = (
        "13. Dr. Shashanka Bhide, Dr. Rajiv Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das voted to "
        "remain focused on withdrawal of accommodation to ensure that inflation progressively aligns to the target, "
        "while supporting growth. Dr. Ashima Goyal and Prof. Jayanth R. Varma voted for a change in stance to neutral."
    )
    table = (
        "Voting on the Resolution to keep the policy repo rate unchanged at 6.50 per cent Member Vote Dr. Shashanka "
        "Bhide Yes Dr. Ashima Goyal No Prof. Jayanth R. Varma No Dr. Rajiv Ranjan Yes Dr. Michael Debabrata Patra Yes "
        "Shri Shaktikanta Das Yes"
    )
    passages = [{**_minutes()[1], "text": stance}, {**_minutes()[2], "text": table}]
    on_stance = "Which members voted to change the stance in June 2024?"
    ev = choose(on_stance, understand(on_stance, []), passages)
    assert ev is not None and ev.table is None
    assert any("voted for a change in stance to neutral" in c.sentence for c in ev.chosen)
    on_rate = "How did the members vote on the repo rate in June 2024?"
    rate = choose(on_rate, understand(on_rate, []), passages)
    assert rate is not None and rate.table is not None
    assert rate.table[1].no == ["Dr. Ashima Goyal", "Prof. Jayanth R. Varma"]


def test_a_later_passage_repeating_the_heading_drops_the_previous_members_words_before_it() -> None:
    # October 2023, p. 11: Dr. Rajiv Ranjan's vote ends his statement just before Dr. Patra's heading;
    # the chunker's overlap repeats both at the start of the next passage.
    ordered = [
        {**_minutes()[4], "text": "Thus, I vote for pause in repo rate. Statement by Dr. Michael Debabrata Patra"},
        {
            **_minutes()[5],
            "text": "Thus, I vote for pause in repo rate. Statement by Dr. Michael Debabrata Patra 60. The "
            "recovery that had surged has been grudging. Accordingly, I vote for maintaining status quo on the "
            "policy repo rate.",
        },
    ]
    patra = statement_of("Dr. Michael Debabrata Patra", ordered)
    assert [p["text"] for p in patra] == [
        "",
        "60. The recovery that had surged has been grudging. Accordingly, I vote for maintaining status quo on the "
        "policy repo rate.",
    ]
    picked = [s for _, s in reasons("What did Patra argue?", patra, "Dr. Michael Debabrata Patra")]
    assert picked == [
        "The recovery that had surged has been grudging.",
        "Accordingly, I vote for maintaining status quo on the policy repo rate.",
    ]


def test_a_periodical_cited_or_a_fragment_is_not_a_reason() -> None:
    statement = [
        {
            **_minutes()[5],
            "text": "anticipate that growth will gather positive momentum from the second quarter onwards. Our "
            "projections 6 BIS Quarterly Review, September 2021. Accordingly, I vote for maintaining status quo.",
        }
    ]
    assert [s for _, s in reasons("What did Patra argue?", statement, "Dr. Michael Debabrata Patra")] == [
        "Accordingly, I vote for maintaining status quo."
    ]


def test_finding_the_named_members_statement_is_a_confident_retrieval() -> None:
    from research.agent.tool_nodes import _confidence

    question = "What did Patra argue in October 2023?"
    patra = statement_of("Dr. Michael Debabrata Patra", _minutes())
    assert _confidence(question, understand(question, []), patra, question) == 0.9
    assert _confidence(question, understand(question, []), [_minutes()[0]], question) < 0.9


@pytest.mark.parametrize(
    ("question", "wrong"),
    [
        # August 2017, p. 12: a member's vote, not the committee's decision; and the stance has no figure.
        ("Why did the MPC change the stance to neutral?", "the policy stance was cut by"),
        ("By how much did the MPC cut the repo rate in August 2017?", "the policy repo rate was cut by"),
    ],
)
def test_a_members_vote_is_never_written_as_the_committees_decision(question: str, wrong: str) -> None:
    from research.agent.compose.docs import compose_documents
    from research.agent.verify.claims import render_text

    vote = "Hence, I vote for a policy repo rate cut by 25 basis points while retaining the neutral stance."
    c = Composer(question)
    out: dict[str, Any] = {
        "passages": [{**_minutes()[4], "text": vote}],
        "understanding": understand(question, []).as_dict(),
    }
    compose_documents(c, "rag_search", out)
    answer = render_text(c.draft, c.claims)
    assert wrong not in answer and vote in answer  # quoted as the member's words, not restated as a decision
    passages = {p["chunk_id"]: p for p in out["passages"]}
    checks = {x["check"]: x for x in assess(understand(question, []), c, passages)["checks"]}
    assert checks["aspects"]["ok"] is False and "change" in checks["aspects"]["detail"]


def test_the_stance_has_no_figure_to_write_even_beside_the_committees_move() -> None:
    from research.agent.compose.docs import compose_documents
    from research.agent.verify.claims import render_text

    question = "Why did the MPC change the stance to neutral?"
    # August 2017's resolution (read by hand): the move was the rate's, the stance stayed neutral.
    decided = "The MPC decided to reduce the policy repo rate by 25 basis points while retaining the neutral stance."
    c = Composer(question)
    out = {"passages": [{**_minutes()[1], "text": decided}], "understanding": understand(question, []).as_dict()}
    compose_documents(c, "rag_search", out)
    answer = render_text(c.draft, c.claims)
    assert "policy stance was cut" not in answer and "Policy stance:" not in answer and decided in answer
    assert c.outcome == "escalate"


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("Did Prof. Varma vote to cut the rate in June 2024?", "Yes. Prof. Jayanth R. Varma voted to cut it"),
        ("Did Dr. Patra vote to cut the repo rate in June 2024?", "No. Dr. Michael Debabrata Patra voted to keep it"),
        ("Did Dr. Goyal vote to keep the repo rate unchanged?", "No. Dr. Ashima Goyal voted to cut it"),
    ],
)
def test_a_yes_no_about_a_members_vote_is_answered_from_how_the_minutes_say_the_member_voted(
    question: str, line: str
) -> None:
    from research.agent.compose.docs import compose_documents

    # June 2024, p. 3, para 12 (read by hand).
    para = (
        "12. Dr. Shashanka Bhide, Dr. Rajiv Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das voted to "
        "keep the policy repo rate unchanged at 6.50 per cent. Dr. Ashima Goyal and Prof. Jayanth R. Varma voted to "
        "reduce the policy repo rate by 25 basis points."
    )
    c = Composer(question)
    out: dict[str, Any] = {
        "passages": [{**_minutes()[1], "text": para}],
        "understanding": understand(question, []).as_dict(),
    }
    compose_documents(c, "rag_search", out)
    assert c.parts[0].startswith(line) and c.parts[0].endswith("according to RBI MPC Minutes, June 2024.")
    passages = {p["chunk_id"]: p for p in out["passages"]}
    assert assess(understand(question, []), c, passages)["ok"] is True
