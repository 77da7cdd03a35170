"""Model instances read with one fixed SQL statement, for the few hot API reads where compiling
the ORM's query costs more than running it.

Measured under load (docs/operations.md "Reliability and security"): for an API token's lookup, or a list of
a user's portfolios, Django spends 0.3–0.6 ms of CPU building the SQL and a tenth of that running
it. The statements here are built once per process from the models' metadata (never from input;
values are always parameters), and each row becomes the same instance the ORM would give: every
field decoded by its own converters (JSON text → list, …), then ``Model.from_db``. Each caller has
a test that compares its result with the ORM's, field by field."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model


def columns(alias: str, fields: Sequence[Field[Any, Any]]) -> str:
    """``alias."col", …`` for ``fields``, quoted for this database."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(str(field.column))}" for field in fields)


def table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def instance(model: type[Model], fields: Sequence[Field[Any, Any]], values: Sequence[Any]) -> Any:
    """The ``model`` instance for ``values`` of ``fields`` (others deferred, as with ``only()``)."""
    decoded = []
    for field, value in zip(fields, values, strict=True):
        for convert in field.get_db_converters(connection):
            value = convert(value, field, connection)
        decoded.append(value)
    return model.from_db(connection.alias, [field.attname for field in fields], decoded)
