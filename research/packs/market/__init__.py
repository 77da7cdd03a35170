"""Market data over the shipped instruments: the names people use for an index or a company that its
symbol does not show, and how a benchmark defaults."""

from __future__ import annotations

from research.packs.base import Pack

PACK = Pack(
    name="market",
    label="market data",
    ticker_aliases=(
        ("nifty", "^NSEI"),
        ("nifty 50", "^NSEI"),
        ("tata consultancy", "TCS.NS"),
        ("state bank", "SBIN.NS"),
    ),
    benchmark_note="Default ^NSEI for Indian tickers, else SPY",
    own_words=("NIFTY", "^NSEI", "Sensex", ".NS"),
)
