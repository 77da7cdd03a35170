"""What a writer produces: the brief's structure, with figure-free prose (``briefs.contract``).

Structure (the same for the deterministic and the LLM writer):

* ``dateline`` — the data as-of, the brief date, staleness and the news as-of: set by code and
  rendered as the brief's first line (dates there are data, not prose);
* ``summary`` — the lead: two to four sentences across the watchlist, with ``lead_headlines``
  quoting the evidence for the risk events it names;
* ``sections`` — one per ticker, ordered by importance (most notable first);
* ``table`` — every ticker in a compact table: cells are claim references rendered by code.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, field_validator

from briefs.contract import assert_figure_free, claim_references, ticker_references

MAX_NARRATIVE_CHARS = 2_000
TABLE_METRICS = ("last_close", "change_1d_pct", "return_30d_pct", "volatility_annualised_pct")


class QuotedHeadline(BaseModel):
    """A headline quoted verbatim from the news retrieved for ``ticker`` (checked by the verifier)."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(max_length=300)
    link: str = ""
    publisher: str = ""
    ticker: str = ""  # whose retrieved news it comes from (lead evidence); "" in a section: the section's
    event: str = ""  # the risk event it is evidence of, if any


class BriefSection(BaseModel):
    ticker: str
    name: str = ""  # the instrument's name, shown beside the ticker
    narrative: str = Field(max_length=MAX_NARRATIVE_CHARS)
    headlines: list[QuotedHeadline] = Field(default_factory=list, max_length=5)
    sentiment: str = "neutral"
    risk_events: list[str] = Field(default_factory=list)

    @field_validator("narrative")
    @classmethod
    def _narrative(cls, value: str) -> str:
        return assert_figure_free(value)


class TableRow(BaseModel):
    """One ticker's row: metric → claim id (a missing figure has no entry and shows "—")."""

    ticker: str
    name: str = ""
    refs: dict[str, str] = Field(default_factory=dict)


class Dateline(BaseModel):
    """When the figures and the news are from, and whether the data is stale for this brief."""

    as_of: dt.date | None = None  # newest bar behind the figures
    brief_date: dt.date | None = None  # the day the brief was produced for
    sessions_behind: int = 0  # trading days (Mon–Fri) between as_of and brief_date
    stale: bool = False  # sessions_behind > BRIEF_STALE_AFTER_TRADING_DAYS
    source: str = ""  # market-data source (snapshot = shipped history, not live)
    news_as_of: dt.date | None = None
    news_source: str = ""
    lagging: dict[str, dt.date] = Field(default_factory=dict)  # tickers whose newest bar is older than as_of


class BriefDraft(BaseModel):
    """Prose with references only, plus the structure code renders around it."""

    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(max_length=MAX_NARRATIVE_CHARS)  # the lead
    lead_headlines: list[QuotedHeadline] = Field(default_factory=list, max_length=4)
    sections: list[BriefSection]
    table: list[TableRow] = Field(default_factory=list)
    dateline: Dateline | None = None
    benchmark: str = ""  # the ticker the lead compares against (may be outside the watchlist)
    names: dict[str, str] = Field(default_factory=dict)  # ticker → display name ({{t:…}} renders it)
    partial: bool = False

    @field_validator("title", "summary")
    @classmethod
    def _prose(cls, value: str) -> str:
        return assert_figure_free(value)

    def prose(self) -> list[tuple[str, str]]:
        """``(where, text)`` of every piece of prose: the title, the lead, each narrative."""
        return [("title", self.title), ("lead", self.summary)] + [(s.ticker, s.narrative) for s in self.sections]

    def all_references(self) -> list[str]:
        """Every claim id cited in the prose (the table's cells are not prose)."""
        return [ref for _, text in self.prose() for ref in claim_references(text)]

    def all_ticker_references(self) -> list[str]:
        return [ref for _, text in self.prose() for ref in ticker_references(text)]

    def table_references(self) -> list[str]:
        return [ref for row in self.table for ref in row.refs.values()]
