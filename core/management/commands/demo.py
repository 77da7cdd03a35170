"""``make demo``: migrate, create demo users, then run web + worker + beat until Ctrl-C."""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.roles import ADMIN, ANALYST, REVIEWER
from core.services import user_ensure

DEMO_USERS = (
    ("analyst@alphadesk.local", [ANALYST], False),
    ("analyst2@alphadesk.local", [ANALYST], False),
    ("reviewer@alphadesk.local", [REVIEWER], False),
    ("admin@alphadesk.local", [ADMIN, ANALYST, REVIEWER], True),
)


def demo_users_ensure(stdout: Any) -> None:
    """Create the demo users once; print credentials only when they are created."""
    fixed = os.environ.get("DEMO_PASSWORD", "")
    created_rows: list[tuple[str, str, str]] = []
    for email, roles, staff in DEMO_USERS:
        password = fixed or secrets.token_urlsafe(12)
        _, created = user_ensure(email=email, roles=roles, password=password, staff=staff)
        if created:
            created_rows.append((email, ", ".join(roles), password))
    if created_rows:
        stdout.write("\nDemo users (shown once — note them now):")
        for email, role_names, password in created_rows:
            stdout.write(f"  {email:28} {password:20} {role_names}")
        stdout.write("Reset a password later with: .venv/bin/python manage.py changepassword <email>\n")
    else:
        stdout.write("Demo users already exist (passwords were printed when they were created).")


class Command(BaseCommand):
    help = "Run the whole portal locally: migrate, demo users, then web (uvicorn) + Celery worker + beat."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--setup-only", action="store_true", help="Prepare data and exit without serving.")

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Database migrated.")
        demo_users_ensure(self.stdout)
        for step in getattr(settings, "DEMO_SETUP_COMMANDS", []):
            call_command(*shlex.split(step))
        if options["setup_only"]:
            return
        self._serve(options["host"], options["port"])

    def _serve(self, host: str, port: int) -> None:
        from honcho.manager import Manager
        from honcho.printer import Printer

        # Children attach to the servers this process started (and stops on exit).
        env = {**os.environ, "DATABASE_URL": settings.DATABASE_URL, "REDIS_URL": settings.REDIS_URL}
        python = sys.executable
        concurrency = os.environ.get("CELERY_CONCURRENCY", "2")
        processes = {
            "web": f"{python} -m uvicorn config.asgi:application --host {host} --port {port} --no-access-log "
            "--no-proxy-headers",  # X-Forwarded-For: core.middleware.ClientIpMiddleware, TRUSTED_PROXIES
            "worker": f"{python} -m celery -A config worker --loglevel INFO --concurrency {concurrency}",
            "beat": f"{python} -m celery -A config beat --loglevel INFO --pidfile= "
            "--scheduler django_celery_beat.schedulers:DatabaseScheduler",
        }
        # Bounded database connections (docs/operations.md "Reliability and security"): each process has its own
        # pool; a worker child runs one graph at a time (its parallel tools take a few), beat fewer.
        pools = {"web": "10", "worker": "6", "beat": "2"}
        manager = Manager(Printer(sys.stdout))
        for name, cmd in processes.items():
            manager.add_process(name, cmd, env={"DB_POOL_MAX_SIZE": pools[name], **env})
        self.stdout.write(
            self.style.SUCCESS(
                f"\nAlphaDesk is starting at http://{host}:{port}/  (health: /api/v1/health, API docs: /api/docs/)"
            )
        )
        self.stdout.write("Press Ctrl-C to stop web, worker, beat and the embedded services.\n")
        manager.loop()
        sys.exit(manager.returncode or 0)
