from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.audit import audit_chain_breaks
from core.models import AuditEvent


class Command(BaseCommand):
    help = "Walk the audit hash chain and report the first broken link (exit 1 if any)."

    def handle(self, *args: Any, **options: Any) -> None:
        for event, reason in audit_chain_breaks():
            when = f"{event.created_at:%Y-%m-%d %H:%M:%S}"
            raise CommandError(f"audit chain broken at event id={event.pk} ({event.action}, {when}): {reason}")
        self.stdout.write(self.style.SUCCESS(f"audit chain intact: {AuditEvent.objects.count()} events"))
