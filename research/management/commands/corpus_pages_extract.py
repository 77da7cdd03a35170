"""Build the shipped demo corpus: every MPC minutes PDF and the Annual Report, read by OUR parser
into compressed pages files (``data/rbi/pages/``) plus ``manifest.json``.

Run once by a maintainer where the team's data set is present::

    manage.py corpus_pages_extract --source ../shared/data/rbi

The PDFs stay out of the repository (25 MB); their text (about 2 MB, a few hundred KB compressed)
goes in, with each PDF's SHA-256 so an analyst uploading the same PDF is linked to the demo copy.
"""

from __future__ import annotations

import calendar
import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from research.ingest.pages import pages_dump
from research.ingest.parsers import parse_pdf, parse_text

ISSUER = "Reserve Bank of India"
MONTHS = list(calendar.month_name[1:])


def _date(day_month_year: str) -> dt.date:
    day, month, year = (int(x) for x in day_month_year.split("-"))
    return dt.date(year, month, day)


def _meetings(source: Path) -> list[dict[str, Any]]:
    """The minutes' metadata (meeting days, release date, RBI link), oldest meeting first."""
    meta = json.loads((source / "mpc-minutes" / "metadata.json").read_text())
    rows = [row for year in meta.values() for row in year]
    return sorted(rows, key=lambda r: _date(r["start_date"]))


def _minutes_entry(row: dict[str, Any], pages_name: str, digest: str, size: int, shipped: bool) -> dict[str, Any]:
    start, end = _date(row["start_date"]), _date(row["end_date"])
    pdf = row["original_document_name"]
    return {
        "pages": f"pages/{pages_name}",
        "file": pdf,
        "pdf": f"mpc-minutes/{pdf}" if shipped else None,
        "sha256": digest,
        "bytes": size,
        "title": f"RBI MPC Minutes, {MONTHS[start.month - 1]} {start.year}",
        "issuer": ISSUER,
        "doc_type": "mpc_minutes",
        "doc_date": _date(row["release_date"]).isoformat(),
        "period_start": start.isoformat(),
        "period_end": end.isoformat(),
        "tags": ["rbi", "monetary-policy", "india"],
        "source_url": row["minutes_link"],
    }


class Command(BaseCommand):
    help = "Extract the demo corpus's pages with our parser into data/rbi/pages and write manifest.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", default=str(settings.BASE_DIR.parent / "shared" / "data" / "rbi"))
        parser.add_argument("--target", default=str(settings.RESEARCH_DEMO_CORPUS_DIR))

    def handle(self, *args: Any, **options: Any) -> None:
        source, target = Path(options["source"]), Path(options["target"])
        if not (source / "mpc-minutes" / "metadata.json").exists():
            raise CommandError(f"{source}/mpc-minutes/metadata.json not found")
        (target / "pages").mkdir(parents=True, exist_ok=True)
        entries = [self._minutes(row, source, target) for row in _meetings(source)]
        entries.append(self._annual_report(target))
        (target / "manifest.json").write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
        self.stdout.write(f"{len(entries)} documents in {target / 'manifest.json'}")

    def _write(self, target: Path, name: str, pages: list[Any], source: dict[str, Any]) -> None:
        data = pages_dump(pages, source=source)
        (target / "pages" / name).write_bytes(data)
        self.stdout.write(f"  {name}: {len(pages)} pages, {len(data) / 1e3:.0f} KB")

    def _minutes(self, row: dict[str, Any], source: Path, target: Path) -> dict[str, Any]:
        pdf_path = source / "mpc-minutes" / row["original_document_name"]
        data = pdf_path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        pages_name = pdf_path.stem + ".pages.json.xz"
        info = {"file": pdf_path.name, "sha256": digest, "bytes": len(data), "parser": "research.ingest.parsers"}
        self._write(target, pages_name, parse_pdf(data), info)
        shipped = (target / "mpc-minutes" / pdf_path.name).exists()
        return _minutes_entry(row, pages_name, digest, len(data), shipped)

    def _annual_report(self, target: Path) -> dict[str, Any]:
        text_path = target / "annual-report-2023-24" / "rbi-annual-report-2023-24.txt"
        data = text_path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        pages_name = "rbi-annual-report-2023-24.pages.json.xz"
        info = {"file": text_path.name, "sha256": digest, "bytes": len(data), "parser": "research.ingest.parsers"}
        self._write(target, pages_name, parse_text(data), info)
        return {
            "pages": f"pages/{pages_name}",
            "file": text_path.name,
            "pdf": None,
            "sha256": digest,
            "bytes": len(data),
            "title": "RBI Annual Report 2023-24",
            "issuer": ISSUER,
            "doc_type": "annual_report",
            "doc_date": "2024-05-30",
            # The RBI's accounting year runs April to March since 2020-21: the report covers 2023-24.
            "period_start": "2023-04-01",
            "period_end": "2024-03-31",
            "tags": ["rbi", "annual-report", "india"],
            "source_url": "https://www.rbi.org.in/Scripts/AnnualReportPublications.aspx?Id=1404",
        }
