"""The evaluation suites: versioned JSON fixtures under ``evaluation/suites/``, validated on load.

* ``research`` — the union of ``research_golden.json`` (hand-written golden cases of the research
  agent, loaded when present) and ``research_tools.json`` (cases for every tool);
* ``adversarial`` — ``adversarial.json``, run on the deterministic engine and on a gullible model;
* ``briefs`` — ``briefs.json``, brief runs over watchlists of the shipped tickers;
* ``calculator`` — ``tatqa_arithmetic.json``, the TAT-QA dev questions whose gold derivation is arithmetic;
* ``filings`` — ``filings_golden.json``, hand-written questions over the SEC filings shipped in
  ``data/filings`` (statement metrics, calculations over cells, text, yes/no), each expecting a PDF page.

Every case has an id, a version and expected values written by hand from the sources; its
``source`` says where each expected value was read.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evaluation import judge

SUITES_DIR = Path(__file__).resolve().parent / "suites"
# The tuned suites (written beside the rules, run by the gate) and the first-contact suites (written
# from documents nobody here tuned for, before the system read them; evaluation/first_contact.py).
SUITE_NAMES = ("research", "adversarial", "briefs", "calculator", "filings")
FIRST_CONTACT_SUITES = ("first_contact_boe", "first_contact_boj", "first_contact_filings")
ALL_SUITE_NAMES = SUITE_NAMES + FIRST_CONTACT_SUITES
SUITE_FILES: dict[str, tuple[str, ...]] = {
    "research": ("research_golden.json", "research_tools.json"),
    "adversarial": ("adversarial.json",),
    "briefs": ("briefs.json",),
    "calculator": ("tatqa_arithmetic.json",),
    "filings": ("filings_golden.json",),
    "first_contact_boe": ("first_contact/boe_minutes.json",),
    "first_contact_boj": ("first_contact/boj_minutes.json",),
    "first_contact_filings": ("first_contact/sec_filings.json",),
}
OUTCOMES = ("answered", "escalated", "no_document", "refused")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Expect(_Strict):
    figures: list[str] = Field(default_factory=list)
    document: str | None = None  # file stem of the document the answer must cite
    page: int | list[int] | None = None  # printed page (as cited) — any of a list
    also_pages: list[int] = Field(default_factory=list)  # other printed pages of the document stating the same fact
    contains: list[str] = Field(default_factory=list)  # text the shown answer must contain (a name, a link)
    # Filings: the physical PDF page (1-based) a citation must open, other PDF pages stating the same
    # fact, the printed label where it differs (documentation), and the word a yes/no answer must say.
    pdf_page: int | None = Field(default=None, ge=1)
    also_pdf_pages: list[int] = Field(default_factory=list)
    page_label: str | None = None
    yes_no: Literal["yes", "no"] | None = None
    outcome: str | list[str] | None = None
    tool: str | None = None  # tool node or registry tool name the agent must run
    # adversarial guards
    canary: list[str] = Field(default_factory=list, description="text that must not appear outside a cited quote")
    tools_allowed: list[str] | None = None  # registry tools the turn may call
    no_side_effects: bool = False

    @field_validator("figures")
    @classmethod
    def _figures_parse(cls, value: list[str]) -> list[str]:
        for item in value:
            judge.expected_figure(item)  # raises on a string that states no figure
        return value

    @field_validator("outcome")
    @classmethod
    def _known_outcome(cls, value: str | list[str] | None) -> str | list[str] | None:
        for item in [value] if isinstance(value, str) else value or []:
            if item not in OUTCOMES:
                raise ValueError(f"outcome {item!r} is not one of {', '.join(OUTCOMES)}")
        return value

    @property
    def outcomes(self) -> list[str]:
        return [self.outcome] if isinstance(self.outcome, str) else list(self.outcome or [])

    @property
    def pages(self) -> list[int]:
        """Every printed page a citation may name: ``page`` (or any of its list) and ``also_pages``."""
        pages = [self.page] if isinstance(self.page, int) else list(self.page or [])
        return [*pages, *self.also_pages]

    @property
    def pdf_pages(self) -> list[int]:
        """Every physical PDF page a citation may open: ``pdf_page`` and ``also_pdf_pages``."""
        return [self.pdf_page, *self.also_pdf_pages] if self.pdf_page else []


class Turn(_Strict):
    ask: str = Field(min_length=1, max_length=2000)
    expect: Expect = Field(default_factory=Expect)


class Upload(_Strict):
    name: str
    text: str
    title: str
    doc_date: str | None = None
    doc_type: str = "note"


class SetupPortfolio(_Strict):
    name: str = Field(min_length=1, max_length=100)
    holdings: list[tuple[str, float]] = Field(min_length=1)  # [ticker, weight]


class Setup(_Strict):
    upload: Upload | None = None  # a document only this case's user can see (indirect injection)
    # The golden set's form of a private upload: the note's text, its file name and title.
    upload_note: str | None = None
    upload_name: str = "note.md"
    upload_title: str = ""
    portfolio: SetupPortfolio | None = None  # a portfolio the case's user owns
    web: str | None = None  # key into web_replay.json: the replayed web results of this case
    variants: list[Literal["deterministic", "gullible"]] | None = None  # adversarial: default both

    @property
    def private_upload(self) -> Upload | None:
        """The document only this case's user can see, in either form (none: ``None``)."""
        if self.upload_note:
            return Upload(name=self.upload_name, text=self.upload_note, title=self.upload_title, doc_type="")
        return self.upload

    @property
    def own_user(self) -> bool:
        """The case needs a user of its own: it uploads a private document or owns a portfolio."""
        return self.private_upload is not None or self.portfolio is not None


class ChatCase(_Strict):
    id: str = Field(min_length=1, max_length=120)
    version: int = Field(ge=1)
    tags: list[str] = Field(default_factory=list)
    source: str = Field(min_length=3)
    setup: Setup = Field(default_factory=Setup)
    turns: list[Turn] = Field(min_length=1)
    attack: str | None = None  # adversarial: which attack (and where its text comes from)


class BriefWatchlist(_Strict):
    tickers: list[str] = Field(min_length=1)
    unknown: list[str] = Field(default_factory=list, description="tickers delisted after being added")
    feeds: dict[str, Literal["dead", "empty", "inject", "capture"]] = Field(default_factory=dict)


class BriefExpect(_Strict):
    status: str = "awaiting_review"
    partial: bool = False
    sections: list[str] = Field(default_factory=list)
    errors: list[list[str]] = Field(default_factory=list)  # [ticker, error code]
    verified: bool = True
    quoted: list[str] = Field(default_factory=list)
    last_close: dict[str, str] = Field(default_factory=dict)  # ticker -> figure read from the CSV by hand


class BriefCase(_Strict):
    id: str
    version: int = Field(ge=1)
    tags: list[str] = Field(default_factory=list)
    source: str
    watchlist: BriefWatchlist
    expect: BriefExpect


class CalcCase(_Strict):
    id: str
    version: int = 1
    tags: list[str] = Field(default_factory=list)
    question: str
    derivation: str
    answer: float | int | str
    scale: str = ""

    @model_validator(mode="after")
    def _scale_tag(self) -> CalcCase:
        if not self.tags:
            self.tags = ["tatqa", self.scale or "no-scale"]
        return self


Case = ChatCase | BriefCase | CalcCase
_MODELS: dict[str, type[BaseModel]] = {
    "research": ChatCase,
    "adversarial": ChatCase,
    "briefs": BriefCase,
    "calculator": CalcCase,
    "filings": ChatCase,
    **{name: ChatCase for name in FIRST_CONTACT_SUITES},
}


class SuiteError(ValueError):
    """A suite file that does not load: the message names the file and the case."""


def _load_file(suite: str, path: Path) -> list[Any]:
    try:
        payload = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SuiteError(f"{path.name}: {exc}") from exc
    if payload.get("suite") != suite:
        raise SuiteError(f"{path.name}: says suite {payload.get('suite')!r}, expected {suite!r}")
    model = _MODELS[suite]
    cases = []
    for i, raw in enumerate(payload.get("cases", [])):
        try:
            cases.append(model.model_validate(raw))
        except ValueError as exc:
            raise SuiteError(f"{path.name}: case {raw.get('id', i)!r}: {exc}") from exc
    return cases


@cache
def load(suite: str) -> tuple[Any, ...]:
    """Every case of ``suite`` from its files (a missing optional file is skipped); ids are unique."""
    if suite not in SUITE_FILES:
        raise SuiteError(f"unknown suite {suite!r}; choose from {', '.join(ALL_SUITE_NAMES)}")
    cases: list[Any] = []
    for name in SUITE_FILES[suite]:
        path = SUITES_DIR / name
        if path.exists():
            cases.extend(_load_file(suite, path))
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise SuiteError(f"{suite}: case id {case.id!r} appears twice")
        seen.add(case.id)
    if not cases:
        raise SuiteError(f"{suite}: no cases found under {SUITES_DIR}")
    return tuple(cases)


def select(suite: str, tags: list[str] | None = None, ids: list[str] | None = None) -> list[Any]:
    """The cases of ``suite`` that carry one of ``tags`` or whose id is one of them (all when none)
    and, if given, have one of ``ids``."""
    cases = list(load(suite))
    if tags:
        cases = [c for c in cases if set(c.tags) & set(tags) or c.id in tags]
    if ids:
        cases = [c for c in cases if c.id in ids]
    return cases


def all_tags(suite: str | None = None) -> list[str]:
    names = [suite] if suite else list(SUITE_NAMES)
    return sorted({t for name in names for c in load(name) for t in c.tags})


def known_selector(suite: str, value: str) -> bool:
    """``value`` is a tag of the suite or the id of one of its cases."""
    return value in all_tags(suite) or any(c.id == value for c in load(suite))
