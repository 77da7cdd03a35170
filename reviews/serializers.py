from __future__ import annotations

from typing import Any

from rest_framework import serializers

from reviews.models import ReviewDecision, ReviewTask


class ReviewDecisionSerializer(serializers.ModelSerializer):
    reviewer = serializers.SerializerMethodField()

    class Meta:
        model = ReviewDecision
        fields = ["outcome", "reviewer", "reason", "edited_payload", "diff", "created_at"]

    def get_reviewer(self, obj: ReviewDecision) -> str | None:
        return obj.reviewer.get_username() if obj.reviewer else None


class ReviewTaskSerializer(serializers.ModelSerializer):
    requested_by = serializers.SerializerMethodField()
    decided_by = serializers.SerializerMethodField()
    can_decide = serializers.SerializerMethodField()

    class Meta:
        model = ReviewTask
        fields = [
            "id",
            "kind",
            "state",
            "title",
            "priority",
            "graph_name",
            "thread_id",
            "subject_type",
            "subject_id",
            "requested_by",
            "created_at",
            "due_at",
            "escalated_at",
            "decided_by",
            "decided_at",
            "resume_state",
            "can_decide",
        ]

    def get_requested_by(self, obj: ReviewTask) -> str | None:
        return obj.requested_by.get_username() if obj.requested_by else None

    def get_decided_by(self, obj: ReviewTask) -> str | None:
        return obj.decided_by.get_username() if obj.decided_by else None

    def get_can_decide(self, obj: ReviewTask) -> bool:
        """Pending and not blocked by four-eyes for the requesting user."""
        user = self.context["request"].user
        return obj.is_pending and user.pk not in {obj.requested_by_id, obj.subject_owner_id}


class ReviewTaskDetailSerializer(ReviewTaskSerializer):
    payload = serializers.JSONField()
    decision = serializers.SerializerMethodField()

    class Meta(ReviewTaskSerializer.Meta):
        fields = [*ReviewTaskSerializer.Meta.fields, "payload", "decision"]

    def get_decision(self, obj: ReviewTask) -> dict[str, Any] | None:
        decision = getattr(obj, "decision", None) if not obj.is_pending else None
        return ReviewDecisionSerializer(decision).data if decision else None


class ReviewDecideSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["approve", "edit", "reject"])
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=4000, trim_whitespace=True)
    edited = serializers.DictField(child=serializers.CharField(allow_blank=True, trim_whitespace=False), required=False)
