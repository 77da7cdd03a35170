"""Verifying a draft inside the graph: the run's claims recomputed from the stored bars.

Shared by the verifier node and the gate (a reviewer's edit is verified again before it ships)."""

from __future__ import annotations

from typing import Any

from briefs.agent.state import BriefState
from briefs.claims import BriefDraft, Claim, Verification, verify


def news_by_ticker(state: BriefState) -> dict[str, list[dict[str, Any]]]:
    return {t: v.get("items", []) for t, v in (state.get("sentiment") or {}).items()}


def state_claims(state: BriefState) -> list[Claim]:
    return [Claim.model_validate(c) for c in state.get("claims") or []]


def verify_state(state: BriefState, draft: BriefDraft) -> Verification:
    """Verify ``draft`` against the run's claims, recomputed from the stored bars (one query)."""
    from briefs.agent import store

    claims = state_claims(state)
    bars = store.stored_bars(store.acting_user(state["user_id"]), sorted({c.ticker for c in claims}))
    return verify(draft, claims, bars, news_by_ticker(state), list(state["tickers"]), state.get("benchmark") or "")
