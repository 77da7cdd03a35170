"""docker-compose.yml checked without Docker (no Docker client here, and the package registries
offer none that runs offline): a JSON schema of the part of the Compose specification the file
uses (written here, stricter than the spec: unknown keys are refused), then what scaling out
needs — no shared app volume, the bucket, a health check on every long-running service, a worker
pool per Celery queue with its concurrency and prefetch, and two worker replicas."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
import yaml
from django.conf import settings

from tests.conftest import ROOT

_STRINGS = {"type": "array", "items": {"type": "string"}}
_HEALTHCHECK = {
    "type": "object",
    "additionalProperties": False,
    "required": ["test"],
    "properties": {
        "test": {
            "oneOf": [{"type": "string"}, {**_STRINGS, "minItems": 2, "prefixItems": [{"enum": ["CMD", "CMD-SHELL"]}]}]
        },
        "interval": {"type": "string", "pattern": r"^\d+(ms|s|m)$"},
        "timeout": {"type": "string", "pattern": r"^\d+(ms|s|m)$"},
        "start_period": {"type": "string", "pattern": r"^\d+(ms|s|m)$"},
        "retries": {"type": "integer", "minimum": 1},
    },
}
_SERVICE = {
    "type": "object",
    "additionalProperties": False,
    "anyOf": [{"required": ["image"]}, {"required": ["build"]}],
    "properties": {
        "image": {"type": "string"},
        "build": {"type": "string"},
        "command": {"oneOf": [{"type": "string"}, _STRINGS]},
        "entrypoint": {"oneOf": [{"type": "string"}, _STRINGS]},
        "env_file": {"type": "string"},
        "environment": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
        "depends_on": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "condition": {"enum": ["service_started", "service_healthy", "service_completed_successfully"]}
                },
            },
        },
        "volumes": {**_STRINGS, "items": {"type": "string", "pattern": r"^[\w.-]+:/[\w/.-]*$"}},
        "ports": {**_STRINGS, "items": {"type": "string", "pattern": r"^\d+:\d+$"}},
        "restart": {"enum": ["no", "always", "on-failure", "unless-stopped"]},
        "stop_grace_period": {"type": "string", "pattern": r"^\d+(s|m)$"},
        "healthcheck": _HEALTHCHECK,
        "deploy": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"replicas": {"type": "integer", "minimum": 0}},
        },
    },
}
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["services"],
    "patternProperties": {"^x-": {}},
    "properties": {
        "services": {"type": "object", "minProperties": 1, "additionalProperties": _SERVICE},
        "volumes": {"type": "object", "additionalProperties": {"type": ["object", "null"]}},
    },
}
ONE_SHOT = {"migrate", "bucket"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_file_matches_the_schema_and_references_resolve(compose: dict[str, Any]) -> None:
    jsonschema.validate(compose, SCHEMA)
    services = compose["services"]
    for name, service in services.items():
        assert set(service.get("depends_on", {})) <= set(services) - {name}, name
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in compose["volumes"], (name, volume)


def test_a_schema_violation_is_caught(compose: dict[str, Any]) -> None:
    # The control: the schema refuses what Compose would (a typo'd key, a health check without test).
    broken = {**compose, "services": {**compose["services"], "web": {**compose["services"]["web"], "helthcheck": {}}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"services": {"web": {"image": "x", "healthcheck": {"interval": "5s"}}}}, SCHEMA)


def test_app_containers_share_no_disk_only_postgres_redis_and_the_bucket(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(compose["volumes"]) == {"pgdata", "redisdata", "s3data"}  # the old shared `appvar` is gone
    app = {name for name, service in services.items() if service.get("build")}
    assert app == {"migrate", "web", "worker-ingest", "worker-chat", "worker-briefs", "worker-default", "beat"}
    for name in app:
        service = services[name]
        assert "volumes" not in service, name
        assert service["environment"]["STORAGE_URL"].startswith("s3://"), name
        assert "endpoint_url=http://s3:9000" in service["environment"]["STORAGE_URL"]
        assert set(service["depends_on"]) == {"db", "redis", "bucket"}, name
    assert services["s3"]["image"].startswith("minio/minio")


def test_every_long_running_service_has_a_health_check(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        if name in ONE_SHOT:
            assert service["restart"] == "no", name
        else:
            assert service.get("healthcheck", {}).get("test"), name
            assert service["restart"] == "unless-stopped", name


def test_one_worker_pool_per_queue_with_its_concurrency_and_prefetch(compose: dict[str, Any]) -> None:
    services = compose["services"]
    pools = {}
    for name, service in services.items():
        if not name.startswith("worker-"):
            continue
        command = service["command"]
        queue = re.search(r"-Q (\w+)", command).group(1)  # type: ignore[union-attr]
        concurrency = int(re.search(r"--concurrency (\d+)", command).group(1))  # type: ignore[union-attr]
        prefetch = int(re.search(r"--prefetch-multiplier (\d+)", command).group(1))  # type: ignore[union-attr]
        pools[queue] = (concurrency, prefetch, service["deploy"]["replicas"])
        assert service["environment"]["CELERY_NODE"] == queue and f"--hostname {queue}@%h" in command
    assert set(pools) == set(settings.CELERY_QUEUE_NAMES)
    assert pools == {"ingest": (1, 1, 2), "chat": (4, 1, 2), "briefs": (2, 1, 1), "default": (2, 4, 1)}
    assert settings.CELERY_TASK_ACKS_LATE is True  # every pool acknowledges late
    assert sum(replicas for _, _, replicas in pools.values()) >= 2


def test_the_procfile_has_the_same_pools() -> None:
    lines = dict(
        line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if re.match(r"^[\w-]+: ", line)
    )
    pools = {}
    for name, command in lines.items():
        if name.startswith("worker-"):
            found = re.search(r"-Q (\w+) .*--concurrency (\d+) --prefetch-multiplier (\d+)", command)
            assert found is not None, command
            pools[found.group(1)] = found.groups()[1:]
    assert pools == {"ingest": ("1", "1"), "chat": ("4", "1"), "briefs": ("2", "1"), "default": ("2", "4")}
