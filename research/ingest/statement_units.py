"""What a table is and what its numbers count: the statement named by a caption, and each row's
unit from the table's units line ("In millions, except number of shares which are reflected in
thousands and per share amounts" → amounts in millions, shares in thousands, per-share amounts as
printed). Pure; generic across filers."""

from __future__ import annotations

import re

from research.ingest.statement_lines import Cell

# Statement kinds, in the order they are tried on a caption.
STATEMENT_KINDS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("comprehensive_income", "statement of comprehensive income", re.compile(r"comprehensive (?:income|loss)", re.I)),
    ("cash_flow", "cash-flow statement", re.compile(r"cash flows?", re.I)),
    ("balance_sheet", "balance sheet", re.compile(r"balance sheets?|financial (?:position|condition)", re.I)),
    ("equity", "statement of shareholders' equity", re.compile(r"(?:stockholders|shareholders)['’]? equity", re.I)),
    (
        "income_statement",
        "income statement",
        re.compile(r"statements? of (?:consolidated )?(?:operations|income|earnings)", re.I),
    ),
    ("segment_note", "segment note", re.compile(r"\bsegments?\b", re.I)),
    ("highlights", "financial highlights", re.compile(r"highlights|key financial metrics", re.I)),
    ("note", "note table", re.compile(r".")),
)
STATEMENT_NAMES = {key: name for key, name, _pattern in STATEMENT_KINDS}

_SCALE_RE = re.compile(r"\bin (millions|thousands|billions)\b|\b(millions|thousands|billions) of\b|\((000)s?\)", re.I)
_PER_SHARE_RE = re.compile(r"\bper (?:common |diluted |basic )?share\b|\bEPS\b", re.I)
_SHARES_RE = re.compile(r"\bshares\b|\bshares used\b|\bweighted[- ]average\b", re.I)
_SHARES_SCALE_RE = re.compile(r"shares? (?:which are )?(?:reflected |are |stated )?in (thousands|millions)", re.I)


def statement_kind(caption: str) -> str:
    """The statement a caption names: "income_statement", "balance_sheet", "cash_flow", … or "note"."""
    for key, _name, pattern in STATEMENT_KINDS:
        if pattern.search(caption or ""):
            return key
    return "note"


def table_scale(units: str) -> str:
    """ "millions", "thousands", "billions" or "" from a units line or caption."""
    match = _SCALE_RE.search(units or "")
    if not match:
        return ""
    word = (match.group(1) or match.group(2) or "").lower()
    return word or "thousands"


_MONEY_RE = re.compile(
    r"\$|par value|proceeds|payments?\b|purchases?\b|repurchases?\b|paid-in|capital\b|treasury|at cost", re.I
)


def _is_shares(label: str, section: str) -> bool:
    """A count of shares: "Shares used in …: Diluted", "Weighted average shares outstanding-diluted"."""
    if re.match(r"(?:weighted[- ]average )?(?:number of )?shares\b", label, re.I):
        return True
    if _SHARES_RE.search(section) and re.fullmatch(r"basic|diluted", label, re.I):
        return True
    return bool(_SHARES_RE.search(label)) and not _PER_SHARE_RE.search(label) and not _MONEY_RE.search(label)


def row_unit(label: str, section: str, units: str, cell: Cell) -> str:
    """The unit of a row's values: "%", "USD per share", "shares (thousands)", "USD millions", …"""
    if cell.percent:
        return "%"
    scale = table_scale(units)
    if _is_shares(label, section):
        shares = _SHARES_SCALE_RE.search(units or "")
        if re.search(r"\(000s?\)", f"{section} {label}"):
            return "shares (thousands)"
        if shares:
            return f"shares ({shares.group(1).lower()})"
        return f"shares ({scale})" if scale else "shares"
    # Under a per-share heading only short labels are per share ("Basic", "Continuing operations").
    per_share = _PER_SHARE_RE.search(label) or (_PER_SHARE_RE.search(section) and len(label.split()) <= 3)
    if per_share or (re.fullmatch(r"basic|diluted", label, re.I) and "per share" in units.lower()):
        return "USD per share"
    return f"USD {scale}" if scale else "USD"
