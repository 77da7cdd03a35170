"""Research chat: conversations, turns and the per-step trace of every agent run.

Kept apart from the document-library models (imported by ``research/models.py``) so the two
halves of the research app can evolve without stepping on each other.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("research-chat:conversation", args=[self.pk])

    @property
    def thread_id(self) -> str:
        """The LangGraph checkpointer thread of this conversation: every turn runs on it."""
        return f"chat-{self.pk}"


class Turn(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        ESCALATED = "escalated"  # waiting for a reviewer
        CANCELLED = "cancelled"
        FAILED = "failed"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    question = models.TextField()
    resolved_question = models.TextField(blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    answer = models.TextField(blank=True)
    # [{id, label, value, display, kind: tool|calc|quote, tool, source, expression, url, verified}]
    claims = models.JSONField(default=list, blank=True)
    citations = models.JSONField(default=list, blank=True)  # [{citation, url, chunk_id, quote}]
    # What follow-ups may refer to: [{label, value, unit, period, source}] and tickers named.
    figures = models.JSONField(default=list, blank=True)
    subjects = models.JSONField(default=list, blank=True)
    answered_by = models.CharField(max_length=12, default="agent")  # agent | reviewer
    plan_path = models.CharField(max_length=40, blank=True)  # fast-path rule name, "llm" or "fallback"
    llm_calls = models.PositiveIntegerField(default=0)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    confidence = models.FloatField(null=True, blank=True)
    verification = models.JSONField(default=dict, blank=True)  # {status, checked, problems[]}
    guardrail_events = models.JSONField(default=list, blank=True)
    cancel_requested = models.BooleanField(default=False)
    review_task_id = models.BigIntegerField(null=True, blank=True)
    # The checkpointer thread the turn ran on: the conversation's (``chat-<conversation>``). Turns
    # from before thread = conversation keep their own ``chat-<conversation>-<index>`` thread.
    thread_id = models.CharField(
        max_length=120,
        blank=True,
        help_text="LangGraph checkpointer thread: the conversation's thread (chat-<conversation id>).",
    )
    error = models.TextField(blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Times the sweep took the turn back from a worker that died while answering it; the page says so.
    restarts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["conversation", "index"]
        constraints = [models.UniqueConstraint(fields=["conversation", "index"], name="chat_turn_unique_index")]

    def __str__(self) -> str:
        return f"Turn {self.index} of {self.conversation_id}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


# What each node of the research graph did, in the analyst's words: the conversation page lists the
# steps by these, and the trace page shows the graph's own key beside them (it names the diagram's box).
STEP_LABELS = {
    "memory_resolver": "Read the conversation so far",
    "planner": "Planned the steps",
    "rag_search": "Searched the document library",
    "financial_calculator": "Calculated",
    "document_comparator": "Compared the documents",
    "web_search": "Searched the web",
    "market_data": "Fetched market data",
    "portfolio_analyzer": "Analysed the portfolio",
    "guardrail_check": "Checked the guardrails",
    "final_answer": "Wrote and verified the answer",
    "human_review": "Asked a reviewer",
    "deliver": "Delivered the answer",
}


class TraceStep(models.Model):
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps")
    seq = models.PositiveIntegerField()
    node = models.CharField(max_length=40)
    tool = models.CharField(max_length=60, blank=True)
    inputs = models.JSONField(default=dict, blank=True)
    outputs = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)
    latency_ms = models.FloatField(default=0.0)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    confidence = models.FloatField(null=True, blank=True)
    guardrail_events = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["turn", "seq"]

    def __str__(self) -> str:
        return f"{self.node} #{self.seq}"

    @property
    def label(self) -> str:
        return STEP_LABELS.get(self.node, self.node.replace("_", " ").capitalize())
