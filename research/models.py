"""Document library: documents (with owner and visibility), their chunks with page provenance and
an embedding, and a corpus version that tells every process when its BM25 index is stale."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import OpClass
from django.db import models
from django.db.models import Q
from django.db.models.functions import Cast
from pgvector.django import HalfVectorField, HnswIndex, VectorField

EMBEDDING_DIM = 384


class DocumentQuerySet(models.QuerySet["Document"]):
    def visible_to(self, user: Any) -> DocumentQuerySet:
        """Team-wide documents plus the user's own private ones (nothing for anonymous users)."""
        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(_seen_by(user))

    def hidden_from(self, user: Any) -> DocumentQuerySet:
        """Every document :meth:`visible_to` leaves out: other users' private ones (all of them
        for anonymous users)."""
        if user is None or not getattr(user, "is_authenticated", False):
            return self.all()
        return self.exclude(_seen_by(user))


def _seen_by(user: Any) -> Q:
    return Q(visibility=Document.Visibility.TEAM) | Q(owner=user)


class Document(models.Model):
    class Visibility(models.TextChoices):
        TEAM = "team", "Team-wide"
        PRIVATE = "private", "Private"

    class Kind(models.TextChoices):
        PDF = "pdf", "PDF"
        HTML = "html", "HTML"
        MARKDOWN = "markdown", "Markdown"
        TEXT = "text", "Plain text"
        # Text already extracted page by page by our own parser (research/ingest/pages.py): the
        # shipped demo corpus, so the repository carries compressed text instead of 25 MB of PDFs.
        PAGES = "pages", "Extracted pages"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        PROCESSING = "processing", "Processing"
        DONE = "done", "Ready"
        FAILED = "failed", "Failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="documents")
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.TEAM)
    title = models.CharField(max_length=300)
    issuer = models.CharField(max_length=200, blank=True)
    doc_date = models.DateField(null=True, blank=True)
    doc_type = models.CharField(max_length=60, blank=True, help_text="e.g. mpc_minutes, annual_report")
    # The period the document is about (a meeting's days, a fiscal year), when it is not just its
    # date: questions name periods ("the August 2024 meeting", "the 2023-24 annual report") and are
    # matched against this; ``doc_date`` is when it was issued. Both empty: only ``doc_date`` counts.
    period_start = models.DateField(null=True, blank=True, help_text="first day of the period covered")
    period_end = models.DateField(null=True, blank=True, help_text="last day of the period covered")
    # A filing's fiscal period as the company names it ("Q3 FY2023", "FY2018"): a company's fiscal
    # quarters are not calendar quarters (Apple's Q3 FY2023 ended on 1 July 2023), and questions
    # name them so ("Apple's Q3 2023 net sales"). Read from the cover (research/packs/filings/cover.py).
    fiscal_period = models.CharField(max_length=20, blank=True, help_text="e.g. Q3 FY2023 or FY2018")
    # The corpus pack that reads it (research/packs): recognised at ingest from its first pages and the
    # type and issuer read from it, never from its file name alone; empty when no pack claims it.
    pack = models.CharField(max_length=40, blank=True, help_text="e.g. central_bank, filings")
    tags = ArrayField(models.CharField(max_length=40), default=list, blank=True)
    source_url = models.URLField(max_length=500, blank=True)
    is_reference = models.BooleanField(
        default=False,
        help_text="Part of the team's shared reference set: only admins may delete it.",
    )
    # With REFERENCE_SET_APPROVAL, an admin's request to add the document waits for another admin.
    reference_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reference_requested_at = models.DateTimeField(null=True, blank=True)

    kind = models.CharField(max_length=10, choices=Kind.choices)
    filename = models.CharField(max_length=255)
    file = models.FileField(upload_to="documents/%Y/%m/")
    size_bytes = models.PositiveBigIntegerField()
    content_hash = models.CharField(max_length=64, help_text="sha256 of the uploaded bytes")

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    progress = models.PositiveSmallIntegerField(default=0, help_text="0..100")
    status_message = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    page_count = models.PositiveIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The Celery task that holds the ingestion: its own redelivery (a worker died) may take it
    # over; another message for the same document (the sweep's, a re-upload's) may not.
    ingest_task_id = models.CharField(max_length=64, blank=True, default="")
    ingested_at = models.DateTimeField(null=True, blank=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Idempotent upload: the same bytes from the same owner are one document.
            models.UniqueConstraint(fields=["owner", "content_hash"], name="research_document_owner_hash_uniq"),
            models.CheckConstraint(condition=Q(progress__lte=100), name="research_document_progress_lte_100"),
        ]
        indexes = [
            models.Index(fields=["doc_type", "doc_date"]),
            models.Index(fields=["issuer"]),
            # A re-upload of bytes the team can already see links to that document.
            models.Index(fields=["content_hash"], name="research_document_hash_idx"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    def deletable_by(self, user: Any) -> bool:
        """Admins may delete anything; an uploader their own documents, except the team's reference set."""
        from core.roles import ADMIN, has_role

        if has_role(user, ADMIN):
            return True
        return self.owner_id == getattr(user, "pk", None) and not self.is_reference


def page_reference(label: str, number: int, kind: str) -> str:
    """ "p. 47", or "p. 47 (PDF p. 49)" for a PDF page whose label differs from its place in the file.
    Only a PDF's physical pages mean anything outside AlphaDesk (a text file's pages are its form
    feeds), so other kinds show the label alone."""
    if kind == Document.Kind.PDF and label != str(number):
        return f"p. {label} (PDF p. {number})"
    return f"p. {label}"


class Chunk(models.Model):
    """A passage small enough for the embedding model to read whole, with its provenance."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    page_number = models.PositiveIntegerField(help_text="1-based page in the file (PDF page or text page)")
    # How the label is chosen: research/ingest/page_labels.py (the PDF's own, or a trusted printed number).
    page_label = models.CharField(max_length=20, help_text="printed page number when found, else the page number")
    section = models.CharField(max_length=120, blank=True, help_text="numbered paragraph/section or heading")
    text = models.TextField()
    token_count = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIM)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [models.UniqueConstraint(fields=["document", "ordinal"], name="research_chunk_doc_ordinal_uniq")]
        indexes = [
            # The graph holds the vectors cast to halfvec: half the index (112 against 195 MB at
            # 100k passages), and an insert costs 0.47 ms against 1.14 (bench hnsw_params). At
            # ef_construction 64 and ef_search 300 recall@10 is 0.987 (FiQA) / 0.997 (RBI), above
            # the full-precision graph's 0.977 / 0.996 at 128 and 200. The table keeps full
            # precision, and a search's scores are computed from it (retrieval/search.py).
            HnswIndex(
                OpClass(Cast("embedding", HalfVectorField(dimensions=EMBEDDING_DIM)), name="halfvec_cosine_ops"),
                name="research_chunk_halfvec_hnsw",
                m=16,
                ef_construction=64,
            ),
            models.Index(fields=["document", "page_number"]),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal} p.{self.page_label}"

    @property
    def citation(self) -> str:
        """ "Title, p. 47" — or "Title, p. 47 (PDF p. 49)" when a PDF's page label is not its physical
        page, so a reader who types the page into a PDF viewer lands on it. The one place a citation
        is formatted; the link beside it opens the physical page (``page_number``)."""
        return f"{self.document.title}, {page_reference(self.page_label, self.page_number, self.document.kind)}"


class StatementRow(models.Model):
    """One row of a financial statement table read from a document (research/ingest/statements.py):
    its label, the statement it is in, its unit and its values per period column (``cells``: a list
    of ``{"label", "end", "year", "months", "text", "value"}`` — ``text`` as printed, ``value`` a
    decimal string or null), on its page. ``chunk`` is the passage whose text holds ``line`` (with
    ``chunk_next`` when the row runs on into the next passage), so a figure read from a cell is
    checked against the stored passages like any quote."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="statement_rows")
    chunk = models.ForeignKey(Chunk, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # A row cut between two passages: the next passage holds the rest of ``line``.
    chunk_next = models.ForeignKey(Chunk, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    ordinal = models.PositiveIntegerField()
    statement = models.CharField(max_length=30, help_text="income_statement, balance_sheet, cash_flow, …")
    caption = models.CharField(max_length=300, blank=True)
    section = models.CharField(max_length=200, blank=True, help_text="the heading the row sits under")
    label = models.CharField(max_length=300, help_text='with its heading when generic ("Cost of sales: Products")')
    label_key = models.CharField(max_length=300, help_text="label lower-cased for matching (statement_terms.match_key)")
    line = models.TextField(help_text="the row as extracted, verbatim in the chunk text")
    unit = models.CharField(max_length=40, help_text='"USD millions", "USD per share", "shares (thousands)", "%"')
    cells = models.JSONField(default=list)
    page_number = models.PositiveIntegerField(help_text="1-based page in the file")
    page_label = models.CharField(max_length=20)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="research_statementrow_doc_ordinal_uniq")
        ]
        indexes = [models.Index(fields=["document", "statement"]), models.Index(fields=["label_key"])]

    def __str__(self) -> str:
        return f"{self.document_id} {self.statement}: {self.label}"

    @property
    def citation(self) -> str:
        return f"{self.document.title}, {page_reference(self.page_label, self.page_number, self.document.kind)}"


class CorpusState(models.Model):
    """One row. ``version`` takes a fresh value from a sequence in the same transaction as any
    change to the set of searchable chunks, so every web and worker process can tell that its
    cached BM25 index is stale (a sequence never hands out a value twice, even on rollback)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    version = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="research_corpusstate_singleton")]

    def __str__(self) -> str:
        return f"corpus version {self.version}"


__all__ = ["Chunk", "CorpusState", "Document", "StatementRow"]
