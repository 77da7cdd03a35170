"""Executing one evaluation run: its suite's cases one by one, each stored as it finishes (so the
page and the API show progress), then the metrics, the LLM judge's agreement and the gate.

Called by the Celery task (``evaluation.tasks``) and by ``manage.py evaluate``; idempotent: only a
queued run is claimed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from evaluation import corpus, gaps, llm_judge, metrics, suites
from evaluation.chat import tasks_in_process
from evaluation.models import EvalCaseResult, EvalRun
from evaluation.run_chat import CaseOutcome

logger = logging.getLogger(__name__)
ENGINES = ("deterministic", "anthropic", "gemini")
LIBRARY_TOOLS = {"rag_search", "document_comparator", "search_financial_documents"}


class EngineUnavailable(ValueError):
    """The engine asked for has no key configured."""


def engine_settings(engine: str) -> dict[str, Any]:
    """The settings that make the agents run on ``engine`` (a key decides the LLM mode)."""
    if engine == "deterministic":
        return {"ANTHROPIC_API_KEY": "", "GOOGLE_API_KEY": ""}
    if engine == "anthropic":
        if not settings.ANTHROPIC_API_KEY:
            raise EngineUnavailable("The anthropic engine needs ANTHROPIC_API_KEY in the environment.")
        return {}
    if engine == "gemini":
        if not settings.GOOGLE_API_KEY:
            raise EngineUnavailable("The gemini engine needs GOOGLE_API_KEY in the environment.")
        return {"ANTHROPIC_API_KEY": ""}
    raise EngineUnavailable(f"Unknown engine {engine!r}; choose from {', '.join(ENGINES)}.")


def gullible_settings(url: str) -> dict[str, Any]:
    return {"ANTHROPIC_API_KEY": "gullible-evaluation", "ANTHROPIC_BASE_URL": url, "GOOGLE_API_KEY": ""}


def _needs_library(case: suites.ChatCase) -> bool:
    return (
        case.setup.private_upload is not None
        or any(
            t.expect.document or t.expect.tool in LIBRARY_TOOLS or "no_document" in t.expect.outcomes
            for t in case.turns
        )
        or bool({"documents", "compare", "rag", "no_document"} & set(case.tags))
    )


def variants(run: EvalRun, case: Any) -> list[str]:
    if run.suite == "adversarial":
        return list(case.setup.variants or [run.engine, "gullible"])
    return [run.engine if run.suite in ("research", "briefs", "filings", *suites.FIRST_CONTACT_SUITES) else ""]


def _chat_outcomes(run: EvalRun, cases: list[Any]) -> Iterator[CaseOutcome]:
    from evaluation.gullible import gullible_server
    from evaluation.run_chat import run_case

    chat_cases: list[suites.ChatCase] = cases
    if any(_needs_library(c) for c in chat_cases):
        corpus.ensure()
    llm = llm_judge.judge_llm()
    with ExitStack() as stack:
        server = stack.enter_context(gullible_server()) if run.suite == "adversarial" else None
        for case in chat_cases:
            for variant in variants(run, case):
                engine = (
                    gullible_settings(server.url) if variant == "gullible" and server else engine_settings(run.engine)
                )
                out = run_case(case, suite=run.suite, variant=variant, engine=engine)
                if llm is not None:
                    llm_judge.judge_case(llm, out)
                yield out


def _filings_outcomes(run: EvalRun, cases: list[Any]) -> Iterator[CaseOutcome]:
    """The filings cases, asked by the owner of the private filings library (so no other suite's
    user sees the filings; the library itself is the same for every suite, corpus.ensure)."""
    from evaluation.run_chat import run_case

    owner = corpus.ensure_filings()
    llm = llm_judge.judge_llm()
    for case in cases:
        out = run_case(case, suite=run.suite, variant=run.engine, engine=engine_settings(run.engine), user=owner)
        if llm is not None:
            llm_judge.judge_case(llm, out)
        yield out


def _first_contact_outcomes(run: EvalRun, cases: list[Any]) -> Iterator[CaseOutcome]:
    """A first-contact suite, asked by the analyst who holds the whole library (the shipped corpus,
    the shipped filings and every first-contact corpus present); refused when its documents are not
    on this machine."""
    from evaluation import first_contact
    from evaluation.run_chat import run_case

    first_contact.documents_of(run.suite)  # raises CorpusMissing, with where they were looked for
    owner = first_contact.ensure_library()
    for case in cases:
        yield run_case(case, suite=run.suite, variant=run.engine, engine=engine_settings(run.engine), user=owner)


def _brief_outcomes(run: EvalRun, cases: list[Any]) -> Iterator[CaseOutcome]:
    import json

    from evaluation.feeds import feed_server
    from evaluation.run_briefs import run_case

    injection = json.loads((suites.SUITES_DIR / "briefs.json").read_text())["injection"]
    with feed_server(injection) as feeds:
        for case in cases:
            yield run_case(case, feeds=feeds, engine=engine_settings(run.engine))


def _calc_outcomes(run: EvalRun, cases: list[Any]) -> Iterator[CaseOutcome]:
    from evaluation.run_calculator import run_case

    for case in cases:
        yield run_case(case)


SUITE_RUNNERS: dict[str, Callable[[EvalRun, list[Any]], Iterator[CaseOutcome]]] = {
    "research": _chat_outcomes,
    "adversarial": _chat_outcomes,
    "briefs": _brief_outcomes,
    "calculator": _calc_outcomes,
    "filings": _filings_outcomes,
    **{name: _first_contact_outcomes for name in suites.FIRST_CONTACT_SUITES},
}


def _store(run: EvalRun, seq: int, out: CaseOutcome) -> None:
    EvalCaseResult.objects.create(
        run=run,
        seq=seq,
        case_id=out.case_id,
        case_version=out.version,
        variant=out.variant,
        tags=out.tags,
        source=out.source,
        inputs=out.inputs,
        expected=out.expected,
        actual=out.actual,
        verdicts=out.verdicts,
        llm_verdicts=out.llm_verdicts,
        measures=out.measures,
        outcome=out.outcome,
        reason=out.reason[:4000],
        trace=out.trace,
        latency_ms=out.latency_ms,
    )


def records_of(results: Any, suite: str) -> list[dict[str, Any]]:
    """The metric records of stored case results, each tagged with its suite."""
    return [{**m, "suite": suite} for r in results for m in r.measures]


def execute(run_id: int) -> str:
    """Run a queued evaluation to its end; the run's final status."""
    claimed = EvalRun.objects.filter(pk=run_id, status=EvalRun.Status.QUEUED).update(
        status=EvalRun.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "skipped"
    run = EvalRun.objects.get(pk=run_id)
    try:
        outcomes = _run_cases(run)
    except Exception as exc:
        logger.exception("evaluation run %s failed", run_id)
        EvalRun.objects.filter(pk=run_id).update(
            status=EvalRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        return "failed"
    _finish(run, outcomes)
    return "done"


def _run_cases(run: EvalRun) -> list[CaseOutcome]:
    cases = suites.select(run.suite, tags=run.tags or None)
    total = sum(len(variants(run, c)) for c in cases)
    EvalRun.objects.filter(pk=run.pk).update(total=total)
    outcomes: list[CaseOutcome] = []
    with tasks_in_process():
        for seq, out in enumerate(SUITE_RUNNERS[run.suite](run, cases), start=1):
            _store(run, seq, out)
            outcomes.append(out)
            # Progress is written per case (a few hundred ms each) except for the calculator's
            # hundreds of sub-millisecond cases, which report every 50.
            if run.suite != "calculator" or seq % 50 == 0 or seq == total:
                passed = sum(1 for o in outcomes if o.outcome == "pass")
                EvalRun.objects.filter(pk=run.pk).update(done=seq, passed=passed, current=out.case_id[:120])
    return outcomes


def _finish(run: EvalRun, outcomes: list[CaseOutcome]) -> None:
    from evaluation.run_calculator import summary as calc_summary

    records = [{**m, "suite": run.suite} for o in outcomes for m in o.measures]
    values = metrics.compute(records)
    summary: dict[str, Any] = {"cases": len(outcomes), "passed": sum(1 for o in outcomes if o.outcome == "pass")}
    if run.suite == "calculator":
        summary |= calc_summary(outcomes)
    judge = llm_judge.agreement(outcomes) if any(o.llm_verdicts for o in outcomes) else {"mode": "off"}
    EvalRun.objects.filter(pk=run.pk).update(
        status=EvalRun.Status.DONE,
        metrics=values,
        summary=summary,
        judge=judge,
        gate_ok=not gaps.gate_failures(values),
        done=F("total"),
        passed=summary["passed"],
        current="",
        finished_at=timezone.now(),
    )
