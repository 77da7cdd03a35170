from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from research.models import Document


class DocumentSerializer(serializers.ModelSerializer[Document]):
    owner = serializers.EmailField(source="owner.email", read_only=True)

    class Meta:
        model = Document
        fields = [
            "id",
            "title",
            "issuer",
            "doc_date",
            "period_start",
            "period_end",
            "fiscal_period",
            "doc_type",
            "tags",
            "visibility",
            "owner",
            "kind",
            "filename",
            "size_bytes",
            "content_hash",
            "status",
            "progress",
            "status_message",
            "error",
            "page_count",
            "chunk_count",
            "created_at",
            "ingested_at",
        ]
        read_only_fields = fields


class DocumentUploadSerializer(serializers.Serializer[None]):
    files = serializers.ListField(child=serializers.FileField(allow_empty_file=True), allow_empty=False)
    title = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    issuer = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    doc_type = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    doc_date = serializers.DateField(required=False, allow_null=True, default=None)
    period_start = serializers.DateField(
        required=False, allow_null=True, default=None, help_text="First day of the period the document covers"
    )
    period_end = serializers.DateField(
        required=False, allow_null=True, default=None, help_text="Last day of the period the document covers"
    )
    fiscal_period = serializers.CharField(
        max_length=20, required=False, allow_blank=True, default="", help_text="e.g. Q3 FY2023 or FY2018"
    )
    tags = serializers.CharField(
        max_length=300, required=False, allow_blank=True, default="", help_text="comma-separated"
    )
    visibility = serializers.ChoiceField(choices=Document.Visibility.choices, default=Document.Visibility.TEAM)


class ProposedDetailsSerializer(serializers.Serializer[None]):
    """What the file says about itself (its cover page, else a structured file name)."""

    issuer = serializers.CharField(allow_null=True, help_text="The company, e.g. Apple Inc.")
    doc_type = serializers.CharField(allow_null=True, help_text="10-K, 10-Q, 8-K, earnings_release, …")
    fiscal_period = serializers.CharField(allow_null=True, help_text="e.g. Q3 FY2023 or FY2018")
    period_start = serializers.DateField(allow_null=True)
    period_end = serializers.DateField(allow_null=True)
    doc_date = serializers.DateField(allow_null=True, help_text="Filed or issued on")
    sources = serializers.DictField(
        child=serializers.CharField(),
        help_text="Where each proposed field was read: cover page, signature page, financial statements, "
        "file name, or estimated from the period's end",
    )


class UploadedDocumentSerializer(DocumentSerializer):
    """A created document with the details proposed from its content; the document's own fields
    already hold them where the upload gave none. Confirm or correct with PATCH on the document."""

    proposed = serializers.SerializerMethodField()

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "proposed"]
        read_only_fields = fields

    @extend_schema_field(ProposedDetailsSerializer)
    def get_proposed(self, document: Document) -> dict[str, object] | None:
        proposal = self.context.get("proposals", {}).get(document.pk)
        return proposal.as_dict() if proposal is not None else None


class DocumentDetailsSerializer(serializers.Serializer[None]):
    """The details a client may confirm or correct; send only the ones to change (null clears a date)."""

    title = serializers.CharField(max_length=300, required=False)
    issuer = serializers.CharField(max_length=200, required=False, allow_blank=True)
    doc_type = serializers.CharField(max_length=60, required=False, allow_blank=True)
    fiscal_period = serializers.CharField(max_length=20, required=False, allow_blank=True)
    period_start = serializers.DateField(required=False, allow_null=True)
    period_end = serializers.DateField(required=False, allow_null=True)
    doc_date = serializers.DateField(required=False, allow_null=True, help_text="Filed or issued on")


class RejectedFileSerializer(serializers.Serializer[None]):
    filename = serializers.CharField()
    reason = serializers.CharField()


class DocumentUploadResultSerializer(serializers.Serializer[None]):
    created = UploadedDocumentSerializer(many=True)
    duplicates = DocumentSerializer(many=True)
    rejected = RejectedFileSerializer(many=True)
