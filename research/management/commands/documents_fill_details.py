"""Read the details of documents uploaded before their covers were read (company, form, fiscal
period, period, filing date) and set what they lack — e.g. the 10-Q typed "apple_q_q" from its file
name. Never overwrites a detail someone typed; every change is audited under the admin named."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.roles import ADMIN, has_role
from research.document_details import document_details_fill
from research.ingest.parsers import ParseError
from research.models import Document


class Command(BaseCommand):
    help = "Set the details documents lack from their own covers (company, form, fiscal period, dates)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--as", dest="admin", required=True, help="e-mail of the admin the changes are audited under"
        )
        parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        admin = get_user_model().objects.filter(email=options["admin"]).first()
        if admin is None or not has_role(admin, ADMIN):
            raise CommandError(f"{options['admin']} is not an admin account.")
        changed = 0
        for document in Document.objects.exclude(kind=Document.Kind.PAGES).order_by("id"):
            try:
                changes = document_details_fill(user=admin, document=document, apply=not options["dry_run"])
            except (OSError, ParseError) as exc:
                self.stderr.write(f"{document.filename}: cannot be read ({exc}); left as it is")
                continue
            if changes:
                changed += 1
                listed = ", ".join(f"{k}: {v}" for k, v in changes.items())
                self.stdout.write(f"{document.filename}: {listed}")
        self.stdout.write(f"{changed} document(s) {'would be ' if options['dry_run'] else ''}updated.")
