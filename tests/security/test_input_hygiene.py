"""Issue 49, findings 2 and 3: control characters are refused at the edge with a 400 (NUL used to
reach PostgreSQL and answer 500), and the CSV export neutralises cells a spreadsheet would read as
a formula (OWASP's rule)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from django.test import Client

from core.hygiene import csv_safe
from core.services import api_token_create

pytestmark = pytest.mark.django_db


def signed_in(user: Any) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.parametrize("path", ["/research/chat/?q=a%00b", "/research/chat/conversations/?q=a%00b"])
def test_a_nul_in_the_query_string_is_a_400_not_a_500(analyst: Any, path: str) -> None:
    response = signed_in(analyst).get(path)
    assert response.status_code == 400
    assert "control character" in response.content.decode()


@pytest.mark.parametrize("char", ["%01", "%1b", "%7f", "%0b"])
def test_other_control_characters_are_refused_too(analyst: Any, char: str) -> None:
    assert signed_in(analyst).get(f"/research/chat/conversations/?q=a{char}b").status_code == 400


def test_tab_and_newline_pass(analyst: Any) -> None:
    # Text areas send them; the search simply finds nothing.
    assert signed_in(analyst).get("/research/chat/conversations/?q=a%09b%0Ac").status_code == 200


def test_a_control_character_in_a_form_field_is_refused(analyst: Any) -> None:
    # The portfolio form answers 400 for its own errors too: the refusal's words tell them apart.
    response = signed_in(analyst).post("/portfolios/new/", {"name": "Core\x00"})
    assert response.status_code == 400 and "control character" in response.content.decode()


def test_a_nul_in_a_json_string_is_a_json_400(analyst: Any) -> None:
    raw = api_token_create(user=analyst, name="hygiene")[1]
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {raw}")
    body = {"name": "ok", "tickers": ["INFY.NS\u0000"]}
    response = client.post("/api/v1/watchlists", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_input"
    nested_key = {"filters": {"tags\u0007": []}, "query": "x"}
    response = client.post("/api/v1/research/search", data=json.dumps(nested_key), content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_input"


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://example.invalid","x")', '\'=HYPERLINK("http://example.invalid","x")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("Core India", "Core India"),
        ("a=b", "a=b"),
        ("", ""),
        (42, 42),
        (None, None),
    ],
)
def test_csv_safe_follows_owasp(cell: Any, written: Any) -> None:
    assert csv_safe(cell) == written


def test_the_audit_export_neutralises_a_formula_in_a_portfolio_name(analyst: Any, reviewer: Any) -> None:
    from portfolios.services import portfolio_create

    name = '=HYPERLINK("http://example.invalid","x")'
    portfolio, _ = portfolio_create(user=analyst, name=name, holdings=[("INFY.NS", 1.0)])
    response = signed_in(reviewer).get("/reviews/audit/export.csv")
    rows = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    # Its own rows: a document another test left may share the portfolio's id.
    created = [row for row in rows if row["subject_id"] == str(portfolio.pk) and row["action"].startswith("portfolio.")]
    assert created, rows
    assert created[0]["subject_label"] == "'" + name
    cells = [value for row in rows for value in row.values()]
    assert not [value for value in cells if value and value[0] in "=+-@\t\r"]
