"""The document answer's composers are one registry tried in order (research/agent/compose/chain.py);
a corpus pack contributes the composers its documents need, and they run only on passages of a
document that pack reads (recognised at ingest from the document itself)."""

from __future__ import annotations

from typing import Any

from research.agent.compose.chain import NAMES, STEPS, steps_for
from research.agent.compose.composer import Composer
from research.agent.compose.docs import compose_documents
from research.agent.question.understand import understand
from research.agent.verify.claims import render_text
from research.packs import registry
from tests.research.agent.test_member_reasons import _minutes


def _passage(pack: str) -> dict[str, Any]:
    return {**_minutes()[1], "pack": pack}


def test_every_composer_a_pack_contributes_is_in_the_registry() -> None:
    assert len(NAMES) == len(STEPS)  # one entry per name
    for pack in registry.INSTALLED:
        assert set(pack.composers) <= NAMES, pack.name
    assert "vote_count" in registry.pack_named("central_bank").composers  # type: ignore[union-attr]


def test_the_pack_composers_run_only_on_documents_their_pack_reads() -> None:
    generic = [s.name for s in STEPS if s.generic]
    assert [s.name for s in steps_for([_passage("")])] == generic
    assert [s.name for s in steps_for([_passage("filings")])] == generic
    minutes = [s.name for s in steps_for([_passage("central_bank"), _passage("")])]
    assert minutes == [s.name for s in STEPS]  # one passage of minutes brings the committee's composers
    assert minutes.index("stance") < minutes.index("topic") < minutes.index("each_meeting")  # the registry's order


def test_a_members_vote_is_read_from_minutes_but_not_from_a_note_with_the_same_words() -> None:
    question = "Did Dr. Goyal vote to keep the repo rate unchanged?"
    # June 2024, p. 3, para 12 (read by hand): she voted to reduce the rate.
    para = (
        "12. Dr. Shashanka Bhide, Dr. Rajiv Ranjan, Dr. Michael Debabrata Patra and Shri Shaktikanta Das voted to "
        "keep the policy repo rate unchanged at 6.50 per cent. Dr. Ashima Goyal and Prof. Jayanth R. Varma voted to "
        "reduce the policy repo rate by 25 basis points."
    )
    answers = []
    for pack in ("central_bank", ""):  # the minutes, then the same words in a document no pack reads
        c = Composer(question)
        passage = {**_minutes()[1], "text": para, "pack": pack}
        compose_documents(c, "rag_search", {"passages": [passage], "understanding": understand(question, []).as_dict()})
        answers.append(render_text(c.draft, c.claims))
    assert answers[0].startswith("No. Dr. Ashima Goyal voted to cut it"), answers[0]
    assert not answers[1].startswith("No. Dr. Ashima Goyal voted"), answers[1]
