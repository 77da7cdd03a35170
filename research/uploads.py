"""What an upload carries in (the files) and what it answers (created, duplicates, rejected)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from research.ingest.proposals import Proposal
from research.models import Document


@dataclass
class UploadFile:
    """One file to upload: its name as the user sent it and its bytes."""

    name: str
    data: bytes
    size: int | None = None  # the real size when ``data`` was not read because it is over the cap

    @classmethod
    def from_upload(cls, upload: Any) -> UploadFile:
        """From a Django ``UploadedFile``, without reading a file that is over the cap."""
        name = upload.name or "upload"
        if upload.size > settings.RESEARCH_MAX_UPLOAD_BYTES:
            return cls(name=name, data=b"", size=upload.size)
        return cls(name=name, data=upload.read(), size=upload.size)


@dataclass
class UploadResult:
    created: list[Document] = field(default_factory=list)
    duplicates: list[Document] = field(default_factory=list)  # same bytes already in the library
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    proposals: dict[int, Proposal] = field(default_factory=dict)  # document id → details read from it
