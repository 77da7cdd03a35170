"""Calls to the file store (``STORAGES["default"]``: var/media or an S3 bucket, config/storage.py)
turned into errors a person understands.

A bucket that cannot be reached (network down, server stopped, credentials refused) raises
boto's errors from deep inside django-storages; the disk raises ``OSError``. Callers wrap their
storage calls in :func:`storage_call`, which raises :class:`~core.exceptions.ApplicationError`
``storage_unavailable`` (503 at the API edge) instead of a 500 with a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from core.exceptions import ApplicationError

logger = logging.getLogger(__name__)

STORAGE_ERRORS = (BotoCoreError, ClientError, OSError)
STORAGE_DOWN = "The file store is unavailable right now; nothing was saved. Try again in a minute."
STORAGE_READ_DOWN = "The file store is unavailable right now, so the file cannot be read. Try again in a minute."


def _missing(exc: Exception) -> bool:
    if isinstance(exc, FileNotFoundError):
        return True
    code = str(getattr(exc, "response", {}).get("Error", {}).get("Code", "")) if isinstance(exc, ClientError) else ""
    return code in {"404", "NoSuchKey", "NotFound"}


@contextmanager
def storage_call(what: str, *, message: str = STORAGE_DOWN) -> Iterator[None]:
    """Run a storage call; its failure becomes ``storage_unavailable`` (or ``not_found`` for a file
    the store does not have). ``what`` names the call in the log."""
    try:
        yield
    except STORAGE_ERRORS as exc:
        if _missing(exc):
            raise ApplicationError("not_found", "The file is missing from the file store.") from exc
        logger.warning("file store unavailable while %s: %s: %s", what, type(exc).__name__, exc)
        raise ApplicationError("storage_unavailable", message) from exc


def file_read(field: Any) -> bytes:
    """The bytes of a ``FieldFile`` (an uploaded document's original), read whole: files are capped
    (RESEARCH_MAX_UPLOAD_BYTES)."""
    with storage_call(f"reading {field.name}", message=STORAGE_READ_DOWN), field.open("rb") as handle:
        return bytes(handle.read())


def file_delete_after_commit(storage: Any, name: str) -> None:
    """Delete a stored file once its row's deletion is committed. A store that is down then leaves
    the file behind (logged, never an error for the deletion that already happened)."""
    try:
        storage.delete(name)
    except STORAGE_ERRORS as exc:
        logger.error("could not delete %s from the file store (%s); delete it by hand", name, exc)
