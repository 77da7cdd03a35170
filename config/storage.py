"""Where the app keeps files for later reading: ``STORAGE_URL`` → Django's ``STORAGES["default"]``.

Uploaded documents (their original files) are the only files the app writes for later reading:
exports (PDF, Markdown, HTML of answers and briefs) are rendered per request and never stored, and
the BM25 index is a per-machine cache each process rebuilds from the database (research/retrieval).

- unset or empty: the local disk under ``MEDIA_ROOT`` (``var/media``), as `make demo` has it;
- ``file:///srv/alphadesk/media``: the local disk somewhere else;
- ``s3://BUCKET[/PREFIX]?endpoint_url=…&region_name=…&addressing_style=path``: an S3 bucket (AWS,
  or any S3-compatible server: MinIO, Ceph, moto) through django-storages. Keys come from the URL
  (``s3://KEY:SECRET@BUCKET``, URL-quoted) or else boto3's own chain (``AWS_ACCESS_KEY_ID`` /
  ``AWS_SECRET_ACCESS_KEY``, an instance role).

Every web and worker process of a deployment must name the same store: a file uploaded through one
web process is read back by whichever worker ingests it (docs/operations.md "Scaling out").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

FILESYSTEM = "django.core.files.storage.FileSystemStorage"
S3 = "storages.backends.s3.S3Storage"
# Query parameters passed through to S3Storage as they are (strings).
_S3_OPTIONS = {"endpoint_url", "region_name", "addressing_style", "signature_version", "default_acl"}


def default_storage(url: str, media_root: Path, *, timeout: float = 5.0, attempts: int = 2) -> dict[str, Any]:
    """The ``STORAGES["default"]`` entry for ``url``.

    ``timeout`` bounds each connect and read of the bucket and ``attempts`` the tries of one call
    (boto's default is 5 with backoff): with the bucket unreachable an upload fails within a few
    seconds with a clear error (core/storage.py) instead of holding its request."""
    if not url:
        return {"BACKEND": FILESYSTEM, "OPTIONS": {"location": str(media_root)}}
    parts = urlsplit(url)
    if parts.scheme == "file":
        return {"BACKEND": FILESYSTEM, "OPTIONS": {"location": unquote(parts.path)}}
    if parts.scheme != "s3" or not parts.hostname:
        raise ValueError(f"STORAGE_URL must be empty, file:///path or s3://bucket[/prefix]?…, not {url!r}")
    from botocore.config import Config

    query = dict(parse_qsl(parts.query))
    unknown = set(query) - _S3_OPTIONS
    if unknown:
        raise ValueError(f"STORAGE_URL: unknown option(s) {sorted(unknown)}; known: {sorted(_S3_OPTIONS)}")
    options: dict[str, Any] = {
        "bucket_name": parts.hostname,
        "location": parts.path.strip("/"),
        # Two uploads of the same file name in one month must not overwrite each other (the
        # backend's default is to overwrite); the second gets a suffixed name, as on disk.
        "file_overwrite": False,
        # Downloads go through the app's permission-checked view, never a bucket URL.
        "querystring_auth": True,
        "client_config": Config(
            connect_timeout=timeout, read_timeout=timeout, retries={"max_attempts": attempts, "mode": "standard"}
        ),
        **query,
    }
    if parts.username:
        options["access_key"] = unquote(parts.username)
        options["secret_key"] = unquote(parts.password or "")
    return {"BACKEND": S3, "OPTIONS": options}
