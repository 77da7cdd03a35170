"""Company filings: SEC forms (10-K, 10-Q, 8-K, 20-F, …) and earnings releases. The cover reader
(``cover``) takes the company, form, fiscal period and date from the first pages at upload; the
statement tables' vocabulary is research/retrieval/statement_terms.py."""

from __future__ import annotations

from research.packs.base import Pack, Recognition
from research.packs.filings.cover import FORM_TYPES

PACK = Pack(
    name="filings",
    label="company filings",
    # The form type is read from the cover at upload (cover.detect_filing), never from the file name
    # alone; a filing whose type was not read is told by its cover's own words.
    recognition=Recognition(
        any_of=(
            r"SECURITIES\s+AND\s+EXCHANGE\s+COMMISSION",
            r"\bFORM\s+(?:10-K|10-Q|8-K|20-F|40-F|6-K)\b",
            r"\bExact name of registrant\b",
            r"\btoday\s+(?:announced|reported)\b[^.]{0,120}\b(?:results|quarter|fiscal year)\b",
        ),
        enough=1,
        doc_types=FORM_TYPES,
    ),
    own_words=("10-K", "10-Q", "8-K", "20-F", "Securities and Exchange Commission", "registrant"),
)
