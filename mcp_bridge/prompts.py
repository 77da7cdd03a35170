"""MCP prompts: the product's own ways to start, as messages that point the client's model at our
tools and resources (and at citing what they return, never restating figures from memory)."""

from __future__ import annotations

from mcp.server.mcpserver.prompts import Prompt

from mcp_bridge.resources import URI_TEMPLATE


def brief_for_watchlist(watchlist_id: int) -> str:
    """Summarise the latest reviewer-approved morning brief of one of your watchlists, citing its
    verified claims."""
    uri = URI_TEMPLATE.format(watchlist_id=watchlist_id)
    return (
        f"Read the resource {uri} (the newest reviewer-approved brief of watchlist {watchlist_id}). "
        "Summarise it for an analyst in five bullet points. Every figure you mention must be one of the "
        "brief's verified claims, cited by its claim id (e.g. [c3]); if the resource says there is no "
        "approved brief, say so and stop."
    )


def compare_documents(first: str, second: str, aspect: str = "policy stance") -> str:
    """Compare two documents of the research library (e.g. two MPC minutes) on one aspect, quoting
    the passages that support each point."""
    return (
        f"Use search_financial_documents to find what '{first}' and '{second}' say about {aspect}. "
        "Compare them in a short table (aspect, first, second) followed by the key differences. Quote "
        "the passages you rely on verbatim with their [Source: title, p. N] citation; state a figure "
        "only if it appears in a quoted passage or comes from calculate_financial_metric."
    )


def analyse_portfolio(portfolio_id: int) -> str:
    """Analyse one of your saved portfolios: return, risk, drawdown and what drives them."""
    return (
        f"Call analyze_portfolio with portfolio_id={portfolio_id}. Explain the annualised return, volatility, "
        "Sharpe ratio and maximum drawdown (with its dates) and which holdings contribute most to return and "
        "to risk. Use only the numbers the tool returned, and state its source and as-of date."
    )


PROMPTS = {
    "brief-for-watchlist": brief_for_watchlist,
    "compare-documents": compare_documents,
    "analyse-portfolio": analyse_portfolio,
}


def product_prompts() -> list[Prompt]:
    return [
        Prompt.from_function(fn, name=name, description=" ".join((fn.__doc__ or "").split()))  # type: ignore[arg-type]
        for name, fn in PROMPTS.items()
    ]
