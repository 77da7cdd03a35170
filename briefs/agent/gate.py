"""The human gate and the two endings: deliver an approved brief, or finish a run that delivers nothing.

Everything in ``gate`` before ``interrupt()`` runs again on resume, so its writes are idempotent."""

from __future__ import annotations

from typing import Any

from briefs.agent.state import BriefState
from briefs.agent.verification import state_claims, verify_state
from briefs.claims import BriefDraft


def _store() -> Any:
    from briefs.agent import store

    return store


def _edited(state: BriefState, decision: dict[str, Any], update: dict[str, Any], rnd: int) -> dict[str, Any]:
    """Apply a reviewer's edit: refused (a new gate round, with the reason) unless it parses, keeps
    the contract and every figure it cites verifies."""
    from briefs.markup import from_markup

    body = (decision.get("edited") or {}).get("body", "")
    original = BriefDraft.model_validate(state["draft"])
    try:
        draft = from_markup(body, original, state_claims(state))
    except ValueError as exc:
        return {**update, "outcome": "edit_invalid", "gate_round": rnd + 1, "gate_note": f"The edit was refused: {exc}"}
    result = verify_state(state, draft)
    cited_ok = all(c.verified for c in result.checks if c.id in set(draft.all_references()))
    if result.problems or not cited_ok:
        why = "; ".join(result.problems[:3]) or "it cites a figure that did not verify"
        return {**update, "outcome": "edit_invalid", "gate_round": rnd + 1, "gate_note": f"The edit was refused: {why}"}
    _store().brief_decision(update["brief_id"], decision, draft.model_dump(mode="json"))
    return {**update, "outcome": "approved", "draft": draft.model_dump(mode="json")}


def gate(state: BriefState) -> dict[str, Any]:
    """Save the brief, open (idempotently) a brief_approval review task, pause for the decision."""
    from langgraph.types import interrupt

    store = _store()
    rnd = state.get("gate_round", 0)
    brief_id, task_id = store.brief_open_for_review(state, rnd)
    decision: dict[str, Any] = interrupt({"task_id": task_id, "brief_id": brief_id})
    store.step(
        state["run_id"],
        "gate",
        outputs={"decision": decision.get("outcome"), "reviewer": decision.get("reviewer"), "task_id": task_id},
    )
    outcome = decision.get("outcome")
    update: dict[str, Any] = {"brief_id": brief_id, "decision": decision}
    if outcome == "edit":
        return _edited(state, decision, update, rnd)
    store.brief_decision(brief_id, decision, None)
    if outcome == "approve":
        return {**update, "outcome": "approved" if (state.get("verification") or {}).get("ok") else "blocked"}
    return {**update, "outcome": "rejected"}


def deliver(state: BriefState) -> dict[str, Any]:
    """Email (or archive) the approved brief exactly once."""
    _store().brief_deliver(state)
    return {}


def finish(state: BriefState) -> dict[str, Any]:
    """End a run that does not deliver: no data, budget abort, iteration cap, rejection, blocked."""
    _store().run_finish(state)
    return {}
