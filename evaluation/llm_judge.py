"""LLM-as-judge for correctness and faithfulness, run when a model key is configured.

The prompt is ``evaluation/prompts/judge.md``. Its verdicts are stored beside the deterministic
judge's (``EvalCaseResult.llm_verdicts``) and the run reports how often the two agree. The
judge uses the *configured* provider (``core.llm.get_llm("synthesis")``) whatever engine the
agent ran on: a deterministic run can still be judged by a model.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from core.llm import LLMProvider, complete_checked, fence, get_llm, json_object

PROMPT_PATH = Path(__file__).resolve().parent / "prompts" / "judge.md"


@cache
def prompt() -> str:
    return PROMPT_PATH.read_text()


def judge_llm() -> LLMProvider | None:
    return get_llm("synthesis")


def _parse(text: str) -> dict[str, Any]:
    payload = json_object(text)
    if not isinstance(payload.get("correct"), bool) or not isinstance(payload.get("faithful"), bool):
        raise ValueError("the verdict needs boolean 'correct' and 'faithful'")
    return {
        "correct": payload["correct"],
        "faithful": payload["faithful"],
        "reason": str(payload.get("reason", ""))[:300],
    }


def verdict(llm: LLMProvider, *, question: str, expect: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
    """The model's verdict on one turn, or ``{"error": ...}`` when the call or its reply failed."""
    case = {
        "question": question,
        "expectation": expect,
        "outcome": turn["status"],
        "answer": turn["answer"],
        "citations": [{"citation": c.get("citation"), "passage": c.get("quote")} for c in turn["citations"]],
    }
    checked = complete_checked(
        llm, system=prompt(), prompt=fence(json.dumps(case, ensure_ascii=False)), max_tokens=200, parse=_parse
    )
    if checked.value is None:
        return {"error": checked.error, "model": checked.model}
    return {**checked.value, "model": checked.model, "tokens": checked.tokens, "cost_usd": checked.cost_usd}


def judge_case(llm: LLMProvider, out: Any) -> None:
    """Add the model's verdict to each turn of a chat case result (in place)."""
    for i, (question, expect, turn) in enumerate(
        zip(out.inputs["turns"], out.expected["turns"], out.actual["turns"], strict=True)
    ):
        out.llm_verdicts[f"turn {i + 1}"] = verdict(llm, question=question, expect=expect, turn=turn)


def agreement(outcomes: list[Any]) -> dict[str, Any]:
    """How often the model's verdicts agree with the deterministic judge's (correct and faithful)."""
    pairs: list[tuple[str, bool, bool]] = []
    for out in outcomes:
        for key, llm in out.llm_verdicts.items():
            det = out.verdicts.get(key) or {}
            if "error" in llm:
                continue
            pairs.append(("correct", bool(det.get("correct")), llm["correct"]))
            if det.get("faithful") is not None:
                pairs.append(("faithful", bool(det["faithful"]), llm["faithful"]))
    errors = sum(1 for out in outcomes for v in out.llm_verdicts.values() if "error" in v)
    if not pairs:
        return {"mode": "llm", "agreement": None, "compared": 0, "errors": errors}
    agree = sum(1 for _, a, b in pairs if a == b)
    return {
        "mode": "llm",
        "agreement": agree / len(pairs),
        "compared": len(pairs),
        "disagreements": len(pairs) - agree,
        "errors": errors,
    }
