"""``make demo``: migrate, create demo users, then run web + worker + beat until Ctrl-C, each
restarted if it exits and the embedded servers restarted if they stop (core/supervisor.py)."""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.roles import ADMIN, ANALYST, REVIEWER
from core.services import user_ensure
from core.supervisor import Program, Supervisor

SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
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
        parser.add_argument(
            "--no-demo-data",
            action="store_true",
            help="Migrate and create the demo users only: no market snapshot, corpus, reviews or briefs.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Database migrated.")
        demo_users_ensure(self.stdout)
        if not options["no_demo_data"]:
            for step in getattr(settings, "DEMO_SETUP_COMMANDS", []):
                call_command(*shlex.split(step))
        if options["setup_only"]:
            return
        self._serve(options["host"], options["port"])

    def _serve(self, host: str, port: int) -> None:
        # Children attach to the servers this process started (and stops on exit).
        env = {"DATABASE_URL": settings.DATABASE_URL, "REDIS_URL": settings.REDIS_URL}
        python = sys.executable
        concurrency = os.environ.get("CELERY_CONCURRENCY", "2")
        celery = [python, "-m", "celery", "-A", "config"]
        queues = ",".join(settings.CELERY_QUEUE_NAMES)
        commands = {
            # --no-proxy-headers: X-Forwarded-For is read by core.middleware.ClientIpMiddleware (TRUSTED_PROXIES)
            "web": [
                python,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                host,
                "--port",
                str(port),
                "--no-access-log",
                "--no-proxy-headers",
                "--no-server-header",  # no "Server: uvicorn" (issue 49: it names the software to attackers)
            ],
            # One worker for every queue (ingest, chat, briefs, default); production runs a pool per
            # queue (Procfile, docker-compose.yml).
            "worker": [*celery, "worker", "--loglevel", "INFO", "--concurrency", concurrency, "-Q", queues],
            "beat": [*celery, "beat", "--loglevel", "INFO", "--pidfile=", "--scheduler", SCHEDULER],
        }
        # Bounded database connections (docs/operations.md "Reliability and security"): each process has its own
        # pool; a worker child runs one graph at a time (its parallel tools take a few), beat fewer.
        pools = {"web": "10", "worker": "6", "beat": "2"}
        programs = [Program(name, argv, {**env, "DB_POOL_MAX_SIZE": pools[name]}) for name, argv in commands.items()]
        supervisor = Supervisor(
            programs,
            getattr(settings, "DEMO_WATCHED_SERVERS", []),
            grace=settings.DEMO_SHUTDOWN_GRACE_SECONDS,
            out=sys.stdout,
            pid_file=Path(settings.VAR_DIR) / "demo" / "pids.json",
            cwd=Path(settings.BASE_DIR),
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"\nAlphaDesk is starting at http://{host}:{port}/  (health: /api/v1/health, API docs: /api/docs/)"
            )
        )
        self.stdout.write(
            "Press Ctrl-C to stop web, worker, beat and the embedded services "
            f"(running tasks get up to {settings.DEMO_SHUTDOWN_GRACE_SECONDS:g} s to finish).\n"
        )
        sys.exit(supervisor.run())
