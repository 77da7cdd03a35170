from django.conf import settings
from rest_framework import serializers

from core.models import API_SCOPES, ApiToken


class ApiTokenSerializer(serializers.ModelSerializer[ApiToken]):
    is_active = serializers.BooleanField(read_only=True)

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "prefix",
            "scopes",
            "created_at",
            "last_used_at",
            "expires_at",
            "revoked_at",
            "is_active",
        ]
        read_only_fields = fields


class ApiTokenCreateSerializer(serializers.Serializer[None]):
    name = serializers.CharField(max_length=80)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=[key for key, _ in API_SCOPES]),
        default=["api"],
        allow_empty=False,
        help_text="A token may only create tokens with scopes it has itself; a session may choose any.",
    )
    expires_in_days = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=settings.API_TOKEN_MAX_DAYS,
        help_text=f"Days until the token expires (default {settings.API_TOKEN_DEFAULT_DAYS}); a token created "
        "by another token never outlives it.",
    )


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    token = serializers.CharField(read_only=True, help_text="The full token. Shown once; store it now.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "token"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer[None]):
    id = serializers.IntegerField()
    email = serializers.EmailField()
    roles = serializers.ListField(child=serializers.CharField())
