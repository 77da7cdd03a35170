"""Demo data: one research-chat conversation for the demo analyst (the RBI repo-rate walkthrough),
run through the real agent in-process. Idempotent: skipped when the conversation exists."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

TITLE = "What policy repo rate did the MPC decide at its August 2024 meeting?"
FOLLOW_UPS = ["And at the previous meeting?", "What is the percentage change between those two?"]


class Command(BaseCommand):
    help = "Add a demo research-chat conversation (needs the research corpus loaded)."

    def handle(self, *args: Any, **options: Any) -> None:
        import time

        from research.chat.models import Conversation
        from research.chat.services import chat_message_post, chat_turn_run

        analyst = get_user_model().objects.filter(email="analyst@alphadesk.local").first()
        if analyst is None:
            self.stdout.write("no demo analyst (run `manage.py demo` first); skipped")
            return
        if Conversation.objects.filter(owner=analyst, title=TITLE).exists():
            self.stdout.write("= demo chat already present")
            return
        from research.models import Document

        pending = Document.objects.exclude(status=Document.Status.DONE).exclude(status=Document.Status.FAILED)
        if pending.exists() or not Document.objects.filter(status=Document.Status.DONE).exists():
            # make demo queues the corpus for the worker; a chat over a half-ingested library
            # would answer from missing pages, so wait for a later run.
            self.stdout.write("demo chat skipped: the research corpus is still being ingested (added on the next run)")
            return
        conversation_id = None
        for question in [TITLE, *FOLLOW_UPS]:
            turn = chat_message_post(user=analyst, question=question, conversation_id=conversation_id)
            # Run it here (demo setup may run before any worker); a worker that later receives the
            # enqueued message finds the turn no longer queued and skips it — and if a worker got
            # there first, wait for it.
            chat_turn_run(turn_id=turn.pk)
            deadline = time.monotonic() + 60
            turn.refresh_from_db()
            while turn.is_active and time.monotonic() < deadline:
                time.sleep(0.1)
                turn.refresh_from_db()
            conversation_id = turn.conversation_id
            self.stdout.write(f"+ {question} → {turn.status}")
