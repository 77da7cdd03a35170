"""Where an answer's figure comes from is said (issue 46, trusted sources): a private note is named as
the user's own, in the answer and in the claim table; the team's reference set, a team upload and a
private document are told apart. Notes and questions written here."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from research.agent.verify.claims import render_text

pytestmark = pytest.mark.django_db

PRIVATE_NOTE = "# Desk margin note\n\nOur desk expects operating margins of 21 per cent in the second quarter.\n"
TEAM_NOTE = "# Freight desk note\n\nThe freight desk expects container rates to fall 14 per cent this winter.\n"


def _ingested(user: Any, capture: Any, name: str, text: str, visibility: str) -> Any:
    from research.services import UploadFile, document_ingest, document_upload

    with capture(execute=False):
        upload = document_upload(user=user, files=[UploadFile(name=name, data=text.encode())], visibility=visibility)
    return document_ingest(document_id=upload.created[0].pk)


def test_a_documents_standing_is_reference_team_or_private(analyst: Any) -> None:
    from research.models import Document
    from research.tools import document_source

    def doc(visibility: str, reference: bool) -> Document:
        return Document(owner=analyst, visibility=visibility, is_reference=reference)

    assert document_source(doc("team", True)) == "reference"
    assert document_source(doc("team", False)) == "team"
    assert document_source(doc("private", False)) == "private"


def test_an_answer_from_a_private_note_says_it_is_the_users_own(
    ask: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    _ingested(analyst, django_capture_on_commit_callbacks, "margins.md", PRIVATE_NOTE, "private")
    _ingested(analyst, django_capture_on_commit_callbacks, "freight.md", TEAM_NOTE, "team")

    quoted = ask("What operating margins does the desk margin note expect in the second quarter?")
    assert " ".join(render_text(quoted.answer, quoted.claims).split()) == (
        "Your private document says: “Our desk expects operating margins of 21 per cent in the second quarter.” "
        "[Source: margins, p. 1]"
    )
    margins = ask("What operating margins does the desk expect?")
    assert " ".join(render_text(margins.answer, margins.claims).split()) == (
        "Figure found: 21 per cent, according to margins (your private document). “Our desk expects operating "
        "margins of 21 per cent in the second quarter.” [Source: margins, p. 1]"
    )  # the document named as the user's own once
    assert [(c["display"], c.get("origin")) for c in margins.claims if c["kind"] == "quote"] == [
        ("21 per cent", "private")
    ]

    freight = ask("How much will container rates fall this winter?")
    answer = " ".join(render_text(freight.answer, freight.claims).split())
    assert "14 per cent" in answer and "private document" not in answer.lower(), answer
    assert [c.get("origin") for c in freight.claims if c["kind"] == "quote"] == ["team"]

    page = Client()
    page.force_login(analyst)
    html = page.get(margins.conversation.get_absolute_url()).content.decode()
    assert '<span class="badge" data-testid="origin">your note</span>' in html


def test_the_reference_set_outranks_a_team_upload_and_a_team_upload_a_private_note(
    ask: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.models import Document

    def figures(turn: Any) -> list[str]:
        return [c["display"] for c in turn.claims if c["kind"] == "quote"]

    capture = django_capture_on_commit_callbacks
    _ingested(
        analyst, capture, "own-view.md", "# Own view\n\nContainer rates will fall 30 per cent this winter.\n", "private"
    )
    team = _ingested(analyst, capture, "freight.md", TEAM_NOTE, "team")
    question = "How much will container rates fall this winter?"
    assert figures(ask(question)) == ["14 per cent"]  # the team's upload, not the private note
    assert figures(ask("How much will container rates fall this winter according to my note?")) == ["30 per cent"]

    reference = _ingested(
        analyst,
        capture,
        "shipping-review.md",
        "# Shipping review\n\nContainer rates fall 9 per cent this winter.\n",
        "team",
    )
    Document.objects.filter(pk=reference.pk).update(is_reference=True)
    assert team.pk != reference.pk
    assert figures(ask(question)) == ["9 per cent"]  # the reference set's


def test_a_reference_document_on_another_issuer_does_not_overrule(
    ask: Any, analyst: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from research.models import Document
    from research.services import UploadFile, document_ingest, document_upload

    def upload(name: str, text: str, issuer: str, visibility: str) -> Any:
        with django_capture_on_commit_callbacks(execute=False):
            made = document_upload(
                user=analyst, files=[UploadFile(name=name, data=text.encode())], visibility=visibility, issuer=issuer
            )
        return document_ingest(document_id=made.created[0].pk)

    upload(
        "harbour.md",
        "# Harbour note\n\nContainer rates will fall 30 per cent this winter.\n",
        "Harbour Board",
        "private",
    )
    other = upload(
        "port.md",
        "# Port review\n\nContainer rates at the port fall 9 per cent this winter.\n",
        "Port Authority",
        "team",
    )
    Document.objects.filter(pk=other.pk).update(is_reference=True)
    turn = ask("How much will container rates fall this winter?")
    # Another issuer's reference figure does not overrule: the best-scoring sentence stands.
    assert [(c["display"], c.get("origin")) for c in turn.claims if c["kind"] == "quote"] == [
        ("30 per cent", "private")
    ]
