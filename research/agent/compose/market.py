"""Composing market-data and portfolio answers: quotes, metrics, fundamentals, returns over a
horizon compared side by side with the benchmark, and a portfolio's summary with its per-holding
table and a link to its page. Every figure is a ``[[cN]]`` claim on a path in the tool output
(the verifier re-reads it and recomputes it from the daily bars); a missing value is ``n/a``.
Pure: no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import formatting
from research.agent.compose.composer import COMPACT, Composer, bracket_safe


@dataclass(frozen=True)
class _MarketCall:
    """One call's output inside a market_data result; its claims point at ``calls[index]``."""

    c: Composer
    key: str
    index: int
    out: dict[str, Any]

    @property
    def symbol(self) -> str:
        return str(self.out.get("symbol", "?"))

    @property
    def sourced(self) -> str:
        return f"(source: {self.out.get('source')}, as of {formatting.format_date(self.out.get('as_of'))})."

    @property
    def price_unit(self) -> str:
        """How this instrument's prices are written: points for an index, else its currency."""
        return price_unit(self.symbol, self.out.get("currency"))

    def fig(self, field: str, label: str, **kw: Any) -> str:
        return self.c.tool_claim(self.key, ["calls", self.index, field], self.out.get(field), label=label, **kw)


def price_unit(symbol: str, currency: Any) -> str:
    """The number layer's unit for this instrument: a ``^`` symbol is an index (points)."""
    return formatting.price_unit(str(currency or ""), "index" if symbol.startswith("^") else "")


def _fundamentals_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name') or sym}): trailing P/E {fig('trailing_pe', 'trailing P/E')}, "
        f"market cap {fig('market_cap', 'market cap', unit=COMPACT + str(o.get('currency') or ''))}, "
        f"beta {fig('beta', 'beta')} {call.sourced}"
    )


def _metrics_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close', unit=call.price_unit)} "
        f"on {formatting.format_date(o.get('last_date'))}; 30-day return "
        f"{fig('return_30d_pct', '30-day return', unit='±%')}; annualised volatility "
        f"{fig('volatility_annualised_pct', 'volatility', unit='%')}; max drawdown "
        f"{fig('max_drawdown_pct', 'max drawdown', unit='%')}; 52-week high "
        f"{fig('high_52w', '52-week high', unit=call.price_unit)}, "
        f"low {fig('low_52w', '52-week low', unit=call.price_unit)} {call.sourced}"
    )


def _history_line(call: _MarketCall) -> str | None:
    """get_price_history (LLM planner): the window's first and last close, nothing without bars."""
    o, sym = call.out, call.symbol
    bars = o.get("bars") or []
    if not bars:
        return None
    ends = [
        call.c.tool_claim(
            call.key, ["calls", call.index, "bars", j, "close"], bars[j].get("close"), label=label, unit=call.price_unit
        )
        for j, label in ((0, f"{sym} close {formatting.format_date(bars[0]['date'])}"), (len(bars) - 1, f"{sym} close"))
    ]
    first, last = (formatting.format_date(bars[j]["date"]) for j in (0, -1))
    return f"{sym}: close {ends[0]} on {first} and {ends[1]} on {last} {call.sourced}"


def _quote_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close', unit=call.price_unit)} "
        f"on {formatting.format_date(o.get('date'))}, 1-day change "
        f"{fig('change_1d_pct', '1-day change', unit='±%')} {call.sourced}"
    )


def _market_line(call: _MarketCall) -> str | None:
    """The sentence for one call, chosen by the shape of its output (which tool answered)."""
    if "trailing_pe" in call.out:
        return _fundamentals_line(call)
    if "volatility_annualised_pct" in call.out:
        return _metrics_line(call)
    if "bars" in call.out:
        return _history_line(call)
    return _quote_line(call)


def compose_market_data(c: Composer, key: str, out: dict[str, Any]) -> None:
    for i, o in enumerate(out["calls"]):
        call = _MarketCall(c, key, i, o)
        if "rows" in o:  # compare_returns: several tickers over one horizon
            c.subjects.extend(r["symbol"].split(".")[0] for r in o["rows"])
            c.parts.extend(_returns_lines(call))
            continue
        c.subjects.append(call.symbol.split(".")[0])
        line = _market_line(call)
        if line is not None:
            c.parts.append(line)
        if o.get("last_close") is not None:
            c.figures.append(
                {
                    "label": f"{call.symbol} last close",
                    "value": f"{o['last_close']:.2f}",
                    "period": str(o.get("as_of") or ""),
                    "source": o.get("source"),
                }
            )
    for e in out.get("errors", []):
        c.parts.append(f"[Note: {e.get('tool')}: {bracket_safe(e.get('message'))}]")


def compose_portfolio(c: Composer, key: str, out: dict[str, Any]) -> None:
    """A short summary, the per-holding table, the benchmark over the same dates, and a link to the
    saved portfolio's page."""

    def pfig(field: str, label: str, **kw: Any) -> str:
        return c.tool_claim(key, [field], out.get(field), label=label, **kw)

    pct: dict[str, Any] = {"unit": "%", "scale": 100}
    change: dict[str, Any] = {"unit": "±%", "scale": 100}
    name = f"{out['name']} portfolio" if out.get("name") else "The portfolio"
    start, end, as_of = (formatting.format_date(out.get(k)) for k in ("start", "end", "as_of"))
    c.parts.append(
        f"{name}, {start} to {end} (weights rebalanced daily): "
        f"total return {pfig('total_return', 'total return', **change)}, annualised return "
        f"{pfig('annualised_return', 'annualised return', **change)}, annualised volatility "
        f"{pfig('annualised_volatility', 'volatility', **pct)}, Sharpe {pfig('sharpe', 'Sharpe')}, max drawdown "
        f"{pfig('max_drawdown', 'max drawdown', **pct)} (source: {out.get('source')}, as of {as_of})."
    )
    c.parts.append("\n".join(_holdings_table(c, key, out)))
    if out.get("portfolio_id"):
        from django.urls import reverse

        c.parts.append(
            f"[Link: Open the portfolio page | {reverse('portfolios:portfolio', args=[out['portfolio_id']])}]"
        )
    for notice in out.get("notices", []):
        c.parts.append(f"[Note: {bracket_safe(notice)}]")
    c.subjects.extend(a["symbol"].split(".")[0] for a in out.get("assets", []))


def _holdings_table(c: Composer, key: str, out: dict[str, Any]) -> list[str]:
    """Each holding's weight (the portfolio's own definition) and total return over the window
    (recomputed from its closes by the verifier)."""
    lines = ["| Holding | Weight | Total return |", "|---|---|---|"]
    pct: dict[str, Any] = {"unit": "%", "scale": 100}
    change: dict[str, Any] = {"unit": "±%", "scale": 100}
    for i, a in enumerate(out.get("assets", [])):
        weight = c.tool_claim(key, ["assets", i, "weight"], a.get("weight"), label=f"{a['symbol']} weight", **pct)
        total = c.tool_claim(
            key, ["assets", i, "total_return"], a.get("total_return"), label=f"{a['symbol']} total return", **change
        )
        lines.append(f"| {a['symbol']} ({a.get('name') or a['symbol']}) | {weight} | {total} |")
    return lines


def _row_claim(c: Composer, key: str, path: list[Any], row: dict[str, Any], field: str, label: str, **kw: Any) -> str:
    return c.tool_claim(key, [*path, field], row.get(field), label=f"{row['symbol']} {label}", **kw)


def _returns_table(c: Composer, key: str, index: int, out: dict[str, Any]) -> list[str]:
    """A table: each ticker's baseline close, end close and return (claims on the tool output)."""
    lines = ["| Ticker | Start close | End close | Return |", "|---|---|---|---|"]
    rows = [(["calls", index, "rows", i], r) for i, r in enumerate(out["rows"])]
    if out.get("benchmark"):
        rows.append((["calls", index, "benchmark"], out["benchmark"]))
    for path, row in rows:
        name = f"{row['symbol']} ({row.get('name') or row['symbol']})"
        if path[-1] == "benchmark":
            name += ", benchmark"
        unit = price_unit(row["symbol"], row.get("currency"))
        start = _row_claim(c, key, path, row, "start_close", "start close", unit=unit)
        end = _row_claim(c, key, path, row, "end_close", "end close", unit=unit)
        ret = _row_claim(c, key, path, row, "return_pct", "return", unit="±%")
        start_day, end_day = formatting.format_date(row["start_date"]), formatting.format_date(row["end_date"])
        lines.append(f"| {name} | {start} on {start_day} | {end} on {end_day} | {ret} |")
    return lines


def _returns_lines(call: _MarketCall) -> list[str]:
    """Each ticker's return over the horizon, which did better, the benchmark over the same dates,
    then the table of closes."""
    o, c = call.out, call.c
    rows = o.get("rows") or []
    base = ["calls", call.index, "rows"]
    refs = [
        f"{r['symbol']} {_row_claim(c, call.key, [*base, i], r, 'return_pct', 'return', unit='±%')}"
        for i, r in enumerate(rows)
    ]
    label = str(o.get("horizon") or "")
    when = f"Over {label}" if label.startswith("the ") else label[:1].upper() + label[1:]
    span = f"{formatting.format_date(o.get('requested_start'))} to {formatting.format_date(o.get('end'))}"
    first = f"{when} ({span}): " + ", ".join(refs) + "."
    if len(rows) > 1:
        first += f" {o.get('best')} did better."
    bench = o.get("benchmark")
    if bench:
        ref = _row_claim(c, call.key, ["calls", call.index, "benchmark"], bench, "return_pct", "return", unit="±%")
        first += f" The benchmark {bench['symbol']} ({bench.get('name')}) returned {ref} over the same dates"
    first = f"{first.rstrip('.')} {call.sourced}"
    return [first, "\n".join(_returns_table(c, call.key, call.index, o))]
