"""The cover metadata of the team's 20 shared filings (../shared/data/filings), checked against a
table read by hand: a row of the filings benchmark, because the files are not in the checkout (CI).

Expected values were read by hand from each PDF's cover (page 1: "FORM 10-Q … For the quarterly
period ended July 1, 2023 … Apple Inc. (Exact name of Registrant …)"), its signature page
("Date: August 3, 2023", checked with pypdf) and, for earnings releases, the dateline and title.
Each file is read as "upload.pdf", so that the cover alone answers, never the structured file name.
The shipped five of them are also checked by tests/research/test_filing_metadata.py.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from research.packs.filings.cover import EARNINGS_RELEASE

D = dt.date
WHAT = "filing cover metadata read right (issuer, form, period end, fiscal period, filed)"

# stem: (company, form, period end, fiscal period, filed or issued)
ALL_TWENTY = {
    "ACTIVISIONBLIZZARD_2017_10K": ("Activision Blizzard, Inc.", "10-K", D(2017, 12, 31), "FY2017", D(2018, 2, 27)),
    "ACTIVISIONBLIZZARD_2018_10K": ("Activision Blizzard, Inc.", "10-K", D(2018, 12, 31), "FY2018", D(2019, 2, 28)),
    "ACTIVISIONBLIZZARD_2020_10K": ("Activision Blizzard, Inc.", "10-K", D(2020, 12, 31), "FY2020", D(2021, 2, 23)),
    "ACTIVSIONBLIZZARD_2023Q2_10Q": ("Activision Blizzard, Inc.", "10-Q", D(2023, 6, 30), "Q2 FY2023", D(2023, 7, 31)),
    "ADOBE_2019_10K": ("Adobe Inc.", "10-K", D(2019, 11, 29), "FY2019", D(2020, 1, 21)),
    "ADOBE_2020_10K": ("Adobe Inc.", "10-K", D(2020, 11, 27), "FY2020", D(2021, 1, 15)),
    "ADOBE_2021_10K": ("Adobe Inc.", "10-K", D(2021, 12, 3), "FY2021", D(2022, 1, 21)),
    # Named "2022Q2" but its cover reads "For the quarterly period ended June 2, 2023" (Adobe's
    # fiscal 2023 ends in December; "Six Months Ended" columns): the cover wins over the name.
    "ADOBE_2022Q2_10Q": ("Adobe Inc.", "10-Q", D(2023, 6, 2), "Q2 FY2023", D(2023, 6, 28)),
    "AES_2016_10K": ("The AES Corporation", "10-K", D(2016, 12, 31), "FY2016", D(2017, 2, 24)),
    "APPLE_2023Q3_10Q": ("Apple Inc.", "10-Q", D(2023, 7, 1), "Q3 FY2023", D(2023, 8, 3)),
    "COSTCO_2023Q1_EARNINGS": (
        "Costco Wholesale Corporation",
        EARNINGS_RELEASE,
        D(2022, 11, 20),
        "Q1 FY2023",
        D(2022, 12, 8),
    ),
    "COSTCO_2023Q3_EARNINGS": (
        "Costco Wholesale Corporation",
        EARNINGS_RELEASE,
        D(2023, 5, 7),
        "Q3 FY2023",
        D(2023, 5, 25),
    ),
    "EBAY_2023Q1_8K": ("eBay Inc.", "8-K", None, "", D(2023, 2, 7)),
    "EBAY_2023Q1_EARNINGS": ("eBay Inc.", EARNINGS_RELEASE, D(2023, 3, 31), "Q1 FY2023", D(2023, 4, 26)),
    "EBAY_2023Q2_10Q": ("eBay Inc.", "10-Q", D(2023, 6, 30), "Q2 FY2023", D(2023, 7, 27)),
    "EBAY_2023Q2_EARNINGS": ("eBay Inc.", EARNINGS_RELEASE, D(2023, 6, 30), "Q2 FY2023", D(2023, 7, 26)),
    # "Intel Reports First-Quarter 2023 Financial Results" states no end date on its first pages.
    "INTEL_2023Q1_EARNINGS": ("Intel Corporation", EARNINGS_RELEASE, None, "Q1 FY2023", D(2023, 4, 27)),
    "JPMORGAN_2022Q1_10Q": ("JPMorgan Chase & Co.", "10-Q", D(2022, 3, 31), "Q1 FY2022", D(2022, 5, 3)),
    "MCDONALDS_2023Q1_EARNINGS": (
        "McDonald's Corporation",
        EARNINGS_RELEASE,
        D(2023, 3, 31),
        "Q1 FY2023",
        D(2023, 4, 25),
    ),
    "MCDONALDS_2023Q2_EARNINGS": (
        "McDonald's Corporation",
        EARNINGS_RELEASE,
        D(2023, 6, 30),
        "Q2 FY2023",
        D(2023, 7, 27),
    ),
}


def _shown(value: object) -> str:
    return "—" if value in (None, "") else str(value)


def cover_mismatches(folder: Path) -> dict[str, str]:
    """{file stem: what was read, or why it could not be} for every filing whose cover is not read
    as the table says, a table entry missing from ``folder`` and a PDF in ``folder`` not in the table."""
    from research.ingest.parsers import pdf_texts
    from research.packs.filings.cover import detect_filing

    wrong: dict[str, str] = {}
    for stem, expected in ALL_TWENTY.items():
        path = folder / f"{stem}.pdf"
        if not path.is_file():
            wrong[stem] = "missing from the folder"
            continue
        meta = detect_filing(pdf_texts(path.read_bytes()), "upload.pdf")  # the cover alone
        got = (meta.issuer, meta.form_type, meta.period_end, meta.fiscal_period, meta.filed)
        if got != expected:
            fields = ("issuer", "form", "period end", "fiscal period", "filed")
            wrong[stem] = "; ".join(
                f"{field} {_shown(g)} (expected {_shown(e)})"
                for field, g, e in zip(fields, got, expected, strict=True)
                if g != e
            )
    for path in sorted(folder.glob("*.pdf")):
        if path.stem not in ALL_TWENTY:
            wrong[path.stem] = "not in the hand-read table"
    return wrong


def cover_row(folder: Path) -> dict[str, Any]:
    """The benchmark's row: n, how many were read right and which were not (with what was read)."""
    if not folder.is_dir():
        return {"what": f"{WHAT}: SKIPPED, no filings at {folder} (the shared data set is not on this machine)"}
    wrong = cover_mismatches(folder)
    n = len(ALL_TWENTY | {p.stem: None for p in folder.glob("*.pdf")})
    listed = "; ".join(f"{stem}: {why}" for stem, why in wrong.items())
    return {"what": WHAT, "n": n, "right": n - len(wrong), "value": f"wrong: {listed}" if wrong else "all right"}
