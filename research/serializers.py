from __future__ import annotations

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
    tags = serializers.CharField(
        max_length=300, required=False, allow_blank=True, default="", help_text="comma-separated"
    )
    visibility = serializers.ChoiceField(choices=Document.Visibility.choices, default=Document.Visibility.TEAM)


class RejectedFileSerializer(serializers.Serializer[None]):
    filename = serializers.CharField()
    reason = serializers.CharField()


class DocumentUploadResultSerializer(serializers.Serializer[None]):
    created = DocumentSerializer(many=True)
    duplicates = DocumentSerializer(many=True)
    rejected = RejectedFileSerializer(many=True)
