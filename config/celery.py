"""The Celery app: settings come from Django (``CELERY_*``), tasks from each app's tasks.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("alphadesk")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
