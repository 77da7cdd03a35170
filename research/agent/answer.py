"""Composing the extractive answer from the turn's tool results.

One composer per tool node (:data:`COMPOSERS`) turns that node's output into sentences of the
answer. Every figure it writes is a ``[[cN]]`` reference into the claim table — minted from the
tool output by path, so the verifier can re-read and recompute it — or sits inside a verbatim
quote of a cited chunk. A missing value is written ``n/a``, never minted. Pure: no database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from research.agent.compose_docs import compose_documents
from research.agent.composer import Composer, bracket_safe
from research.agent.state import ChatState
from research.agent.verify import CLAIM_REF, fmt

# A note, not an answer: its example percentages are not figures for the verifier.
CAPABILITIES_NOTE = (
    "[Note: I can answer from the document library (RBI minutes and reports), market data for the "
    "shipped tickers, portfolio analytics and the calculator. Ask about a policy decision, a "
    "ticker, a portfolio such as '50% INFY, 50% TCS', or an expression.]"
)
_PERCENT_FUNCTIONS = {"pct_change", "growth_rate", "cagr"}


# --- one composer per tool node: (composer, result key, tool output) -> None -------------------
def _compose_calculator(c: Composer, key: str, out: dict[str, Any]) -> None:
    pct = out["expression"].split("(")[0].strip() in _PERCENT_FUNCTIONS
    ref = c.claim(
        kind="calc",
        expression=out["evaluated"],
        value=out["result"],
        label="calculated",
        display=fmt(out["result"]) + (" %" if pct else ""),
    )
    c.parts.append(f"Result: {ref} [Calculated: {out['expression']}]")
    operands = out.get("operands") or []
    if operands:
        named = [_operand_claim(c, f) for f in operands]
        c.parts.append("Operands, as the earlier answers established them: " + "; ".join(named) + ".")
    c.figures.append({"label": "calculated", "value": f"{out['result']:.4g}", "period": "", "source": "calculator"})


def _operand_claim(c: Composer, figure: dict[str, Any]) -> str:
    """One operand of a calculation on earlier figures, named with its source: a claim on the quoted
    passage it came from (re-checked), else the figure's label and source in words."""
    what = ", ".join(x for x in (figure.get("label"), figure.get("target")) if x)
    if figure.get("chunk_id"):
        ref = c.claim(
            kind="quote",
            chunk_id=figure["chunk_id"],
            citation=figure.get("source", ""),
            url=figure.get("url", ""),
            label=what or "operand",
            value=float(figure["value"]),
            display=f"{figure['value']} {figure.get('unit') or ''}".strip(),
            quote_figure=figure["value"],
        )
        return f"{ref} ({what}) [Source: {figure.get('source', '')}]"
    return f"{what} from {figure.get('source', 'an earlier answer')}"


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
        return f"(source: {self.out.get('source')}, as of {self.out.get('as_of')})."

    def fig(self, field: str, label: str, **kw: Any) -> str:
        return self.c.tool_claim(self.key, ["calls", self.index, field], self.out.get(field), label=label, **kw)


def _fundamentals_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name') or sym}): trailing P/E {fig('trailing_pe', 'trailing P/E')}, "
        f"market cap {fig('market_cap', 'market cap', places=0)} {o.get('currency') or ''}, "
        f"beta {fig('beta', 'beta')} {call.sourced}"
    )


def _metrics_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close')} "
        f"{o.get('currency')} on {o.get('last_date')}; 30-day return "
        f"{fig('return_30d_pct', '30-day return', suffix=' %')}; annualised volatility "
        f"{fig('volatility_annualised_pct', 'volatility', suffix=' %')}; max drawdown "
        f"{fig('max_drawdown_pct', 'max drawdown', suffix=' %')}; 52-week high "
        f"{fig('high_52w', '52-week high')}, low {fig('low_52w', '52-week low')} {call.sourced}"
    )


def _history_line(call: _MarketCall) -> str | None:
    """get_price_history (LLM planner): the window's first and last close, nothing without bars."""
    o, sym = call.out, call.symbol
    bars = o.get("bars") or []
    if not bars:
        return None
    ends = [
        call.c.tool_claim(call.key, ["calls", call.index, "bars", j, "close"], bars[j].get("close"), label=label)
        for j, label in ((0, f"{sym} close {bars[0]['date']}"), (len(bars) - 1, f"{sym} close"))
    ]
    return (
        f"{sym}: close {ends[0]} {o.get('currency')} on {bars[0]['date']} and {ends[1]} on "
        f"{bars[-1]['date']} {call.sourced}"
    )


def _quote_line(call: _MarketCall) -> str:
    o, sym, fig = call.out, call.symbol, call.fig
    return (
        f"{sym} ({o.get('name')}): last close {fig('last_close', f'{sym} last close')} "
        f"{o.get('currency')} on {o.get('date')}, 1-day change "
        f"{fig('change_1d_pct', '1-day change', suffix=' %')} {call.sourced}"
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


def _compose_market_data(c: Composer, key: str, out: dict[str, Any]) -> None:
    for i, o in enumerate(out["calls"]):
        call = _MarketCall(c, key, i, o)
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


def _compose_portfolio(c: Composer, key: str, out: dict[str, Any]) -> None:
    def pfig(field: str, label: str, **kw: Any) -> str:
        return c.tool_claim(key, [field], out.get(field), label=label, **kw)

    c.parts.append(
        f"Portfolio {out.get('start')} to {out.get('end')}: annualised return "
        f"{pfig('annualised_return', 'annualised return', suffix=' %', scale=100)}, annualised volatility "
        f"{pfig('annualised_volatility', 'volatility', suffix=' %', scale=100)}, Sharpe "
        f"{pfig('sharpe', 'Sharpe')}, max drawdown "
        f"{pfig('max_drawdown', 'max drawdown', suffix=' %', scale=100)} "
        f"(source: {out.get('source')}, as of {out.get('as_of')})."
    )
    for notice in out.get("notices", []):
        c.parts.append(f"[Note: {bracket_safe(notice)}]")


def _comparator_analysis(c: Composer, out: dict[str, Any]) -> None:
    """The model's comparison lines; its figures are references to verbatim quotes, shown as the quote."""
    by_ref = {f["ref"]: f["figure"] for f in out["facts"] if f.get("ref")}

    def as_quote(m: re.Match[str]) -> str:
        return f"“{by_ref[m.group(1)]}”" if m.group(1) in by_ref else "n/a"

    for line in out.get("analysis", []):
        text = CLAIM_REF.sub(as_quote, line["text"])
        c.parts.append(f"{line['side'] or 'Difference'} — {line['heading']}: {text}")


def _compose_comparator(c: Composer, key: str, out: dict[str, Any]) -> None:
    llm_mode = out.get("mode") == "llm"
    if llm_mode:
        _comparator_analysis(c, out)
    for side in out["sides"]:
        facts = [f for f in out["facts"] if f["side"] == side]
        # The extractive comparison quotes two facts a side; the model's analysis shows them all.
        for fact in facts if llm_mode else facts[:2]:
            passage = {"citation": fact["citation"], "url": fact["url"], "chunk_id": fact["chunk_id"]}
            c.parts.append(f"{side} — {fact['aspect']}:")
            c.quote(passage, fact["quote"], fact["aspect"])


def _compose_web(c: Composer, key: str, out: dict[str, Any]) -> None:
    for hit in out.get("results", [])[:3]:
        c.parts.append(f"{hit['title']} ({hit['url']})")


ToolComposer = Callable[[Composer, str, dict[str, Any]], None]
COMPOSERS: dict[str, ToolComposer] = {
    "rag_search": compose_documents,
    "financial_calculator": _compose_calculator,
    "market_data": _compose_market_data,
    "portfolio_analyzer": _compose_portfolio,
    "document_comparator": _compose_comparator,
    "web_search": _compose_web,
}


def compose(state: ChatState) -> tuple[Composer, float]:
    """The extractive answer to the turn's results, and its confidence: the lowest confidence of
    the results that answered (0 when none did; 1 when no tool ran and the answer is the help note)."""
    c = Composer(state.get("resolved") or state["question"])
    confidences: list[float] = []
    for r in state.get("results", []):
        if not r["ok"]:
            message = bracket_safe(r["error"].get("message", "unknown error"))
            c.parts.append(f"[Note: the {r['tool']} tool could not answer: {message}]")
            continue
        confidences.append(r.get("confidence", 1.0))
        composer = COMPOSERS.get(r["node"])
        if composer is not None:
            composer(c, r["key"], r.get("output") or {})
    refused = (state.get("scope") or {}).get("refuse")
    if refused:
        c.parts.append(
            f"[Note: I did not calculate this: {bracket_safe(refused)}. Ask for that figure again, naming its "
            "period and measure.]"
        )
    elif not state.get("results"):
        c.parts.append(CAPABILITIES_NOTE)
    confidence = min(confidences) if confidences else (1.0 if not state.get("results") else 0.0)
    return c, confidence


def answer_update(
    c: Composer,
    *,
    template: str,
    verification: dict[str, Any],
    confidence: float,
    attempts: int,
    escalation_reason: str = "",
) -> dict[str, Any]:
    """The final answer's state update. Every claim carries whether its figure traced to source.
    A reviewer is asked when a figure did not trace, when the library's evidence does not answer
    the question (and the answer does not already say so), or when the writer escalated."""
    traced = bool(verification.get("figures_traced", verification["status"] == "verified"))
    for claim in c.claims:
        claim["verified"] = traced
    answers = verification.get("answers") or {}
    if not escalation_reason:
        escalation_reason = _escalation_reason(c, verification, traced, answers)
    if answers.get("ok") is False:
        confidence = min(confidence, 0.3)  # the evidence does not match the question
    update: dict[str, Any] = {
        "answer": template,
        "claims": c.claims,
        "citations": c.citations,
        "figures": c.figures,
        "subjects": c.subjects,
        "verification": verification,
        "confidence": confidence,
        "attempts": attempts,
        "answered_by": "agent",
        "status": "human_review" if escalation_reason else "done",
    }
    if escalation_reason:
        update["escalation_reason"] = escalation_reason
    return update


def _escalation_reason(c: Composer, verification: dict[str, Any], traced: bool, answers: dict[str, Any]) -> str:
    if not traced:
        return "unverified figures: " + "; ".join(verification["problems"][:3])
    if c.outcome == "escalate":
        return "the library's evidence does not answer the question (metric or figure not found)"
    if answers.get("ok") is False:
        failed = [x["detail"] for x in answers.get("checks", []) if not x["ok"]]
        return "the evidence does not match the question: " + "; ".join(failed[:3])
    return ""
