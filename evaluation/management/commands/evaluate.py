"""``python manage.py evaluate [--suite …] [--engine deterministic|anthropic|gemini] [--tag …] [--gate]``

Runs each suite in the foreground (one run per suite, stored like any other), prints the metric
table, and with ``--gate`` exits non-zero when a metric falls below its target (known gaps below
their recorded floor included). ``--write-results`` regenerates evaluation/results/METRICS.md,
latest.json and the metrics table in docs/evaluation.md from the runs just made.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from evaluation import gaps, metrics, report, runner, suites
from evaluation.models import EvalRun
from evaluation.services import RunAlreadyActive, eval_run_start


class Command(BaseCommand):
    help = "Run evaluation suites and report their metrics (optionally as a CI gate)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--suite", action="append", choices=suites.ALL_SUITE_NAMES, help="repeat; default: the tuned suites"
        )
        parser.add_argument("--engine", default="deterministic", choices=runner.ENGINES)
        parser.add_argument(
            "--tag", action="append", default=[], help="only cases with this tag, or this case id (repeatable)"
        )
        parser.add_argument("--gate", action="store_true", help="exit 1 when a metric is below its target")
        parser.add_argument("--write-results", action="store_true", help="regenerate METRICS.md and the README table")
        parser.add_argument(
            "--record-first-contact",
            action="store_true",
            help="store each first-contact suite's figures (its first ones too, the first time) in evaluation/results",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        names = options["suite"] or list(suites.SUITE_NAMES)
        started = time.perf_counter()
        runs = [self._run_one(name, options) for name in names]
        records = [rec for run in runs for rec in runner.records_of(run.cases.all(), run.suite)]
        values = metrics.compute(records)
        self._print(runs, values, time.perf_counter() - started)
        if options["record_first_contact"]:
            self._record_first_contact(runs)
        if options["write_results"]:
            report.write(report.results_payload(runs, values, timezone.now().strftime("%Y-%m-%d %H:%M %Z")))
            self.stdout.write(f"wrote {report.METRICS_MD} and the README metrics table")
        if options["gate"]:
            failed = gaps.gate_failures(values) + [
                f"run #{r.pk} ({r.suite}) failed: {r.error}" for r in runs if r.status != "done"
            ]
            for name in gaps.closed_gaps(values):
                self.stdout.write(f"note: {name} now meets its target; remove it from evaluation/gaps.py")
            if failed:
                raise CommandError("evaluation gate failed:\n  " + "\n  ".join(failed))
            self.stdout.write(self.style.SUCCESS("evaluation gate passed"))

    def _record_first_contact(self, runs: list[EvalRun]) -> None:
        import subprocess

        from evaluation import first_contact

        # Which commit the figures were measured on, for the record (a fixed git command).
        git = ["git", "rev-parse", "--short", "HEAD"]
        commit = subprocess.run(git, capture_output=True, text=True, check=False).stdout.strip()  # noqa: S603
        measured = timezone.now().strftime("%Y-%m-%d %H:%M UTC")
        for run in runs:
            if run.suite in suites.FIRST_CONTACT_SUITES and run.status == "done":
                figures = first_contact.summary(runner.records_of(run.cases.all(), run.suite))
                entry = first_contact.record(run.suite, run.pk, commit or "unknown", measured, figures)
                self.stdout.write(f"{run.suite}: first {entry['first']['measured']}, current {measured}")

    def _run_one(self, suite: str, options: dict[str, Any]) -> EvalRun:
        tags = [t for t in options["tag"] if suites.known_selector(suite, t)]
        if options["tag"] and not tags:
            raise CommandError(f"no case of the {suite} suite carries {', '.join(options['tag'])}")
        try:
            run = eval_run_start(user=None, suite=suite, engine=options["engine"], tags=tags, trigger="command")
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        except RunAlreadyActive as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{suite}: run #{run.pk} ({options['engine']}) …")
        runner.execute(run.pk)
        run.refresh_from_db()
        self.stdout.write(
            f"{suite}: {run.status}, {run.passed}/{run.total} cases passed in {run.duration_s or 0:.1f} s"
            + (f" — {run.error}" if run.error else "")
        )
        return run

    def _print(self, runs: list[EvalRun], values: dict[str, dict[str, Any]], seconds: float) -> None:
        self.stdout.write("")
        for metric in metrics.REGISTRY:
            row = values[metric.key]
            mark = {True: "ok  ", False: "FAIL", None: "--  "}[row["ok"]]
            self.stdout.write(
                f"{mark} {metric.group:<12} {metric.name:<40} {row['shown']:>14}  "
                f"target {metric.target_text}  {row['detail']}"
            )
        for run in runs:
            if run.summary.get("tatqa_arithmetic_agreement") is not None:
                s = run.summary
                self.stdout.write(
                    f"TAT-QA arithmetic: {s['matched']}/{s['questions']} match gold; misses: {s['misses']}"
                )
            if run.judge.get("mode") == "llm":
                self.stdout.write(f"LLM judge ({run.suite}): {run.judge}")
        for line in gaps.known_gaps(values):
            self.stdout.write(f"known gap: {line}")
        self.stdout.write(f"total {seconds:.1f} s")
