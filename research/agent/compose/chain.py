"""The registry of a document answer's composers, in the order they are tried: the first that answers
wins, and when none does the general path (choose the evidence, write its direct line) answers.

A composer is generic, or it serves a kind of document: a committee's vote table, who chaired its
meetings, its decision on the stance. Those run only when a corpus pack that reads one of the
passages' documents (``pack`` on the passage, recognised from the document at ingest) lists them in
its ``composers``: a pack contributes the composers its documents need, and an uploaded note or a
filing is never read with a committee's grammar. Pure: no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from research.agent.compose.chair import compose_governor
from research.agent.compose.change import compose_projection_change
from research.agent.compose.composer import Composer
from research.agent.compose.decision import each_meeting
from research.agent.compose.lines import level_lead
from research.agent.compose.meetings import each_meeting_level, each_metric, latest_projection
from research.agent.compose.member import (
    compose_magnitude_count,
    compose_member,
    compose_member_vote,
    compose_vote_count,
)
from research.agent.compose.revision import compose_revision
from research.agent.compose.stance import compose_stance
from research.agent.compose.topic import compose_topic, compose_topic_absent
from research.agent.question.understand import Understanding
from research.packs import registry

Passages = list[dict[str, Any]]


@dataclass(frozen=True)
class Step:
    name: str
    compose: Callable[[Composer, Understanding, Passages], bool]
    generic: bool = False  # runs for any document; otherwise only where a pack reading one lists it
    example: str = ""


STEPS: tuple[Step, ...] = (
    Step("stance", lambda c, u, ps: compose_stance(c, ps), example="Did the committee change its stance …?"),
    Step("chair", compose_governor, example="Who chaired the committee in 2017?"),
    Step("member_statement", lambda c, u, ps: compose_member(c, ps), example="Why did <member> vote for a cut?"),
    Step("member_vote", lambda c, u, ps: compose_member_vote(c, ps), example="Did <member> vote to cut the rate?"),
    Step(
        "magnitude_count",
        lambda c, u, ps: compose_magnitude_count(c, ps, lead=level_lead(c, u, ps)),
        example="How many members voted for 35 basis points …?",
    ),
    Step("vote_count", lambda c, u, ps: compose_vote_count(c, ps), example="How many members voted for a rate cut?"),
    Step("topic", compose_topic, generic=True, example="What did the committee say about crude oil prices?"),
    Step("topic_absent", compose_topic_absent, generic=True, example="… about cryptocurrency? (no passage names it)"),
    Step("projection_change", compose_projection_change, generic=True, example="How did the projection change …?"),
    Step("revision", compose_revision, generic=True, example="By how much was the projection revised down …?"),
    Step("latest_projection", latest_projection, generic=True, example="What is the projection for 2024-25?"),
    Step("each_metric", each_metric, generic=True, example="What were the two corridor rates …?"),
    Step(
        "each_meeting",
        lambda c, u, ps: each_meeting(c, u, ps) or each_meeting_level(c, u, ps),
        example="What was the policy rate in 2019? (each meeting of the year)",
    ),
)
NAMES = frozenset(step.name for step in STEPS)


def steps_for(passages: Passages) -> list[Step]:
    """The composers to try for ``passages``, in order: the generic ones, and those the packs that
    read the passages' documents contribute."""
    read_by = {str(p.get("pack") or "") for p in passages}
    contributed = {name for pack in registry.INSTALLED if pack.name in read_by for name in pack.composers}
    return [step for step in STEPS if step.generic or step.name in contributed]
