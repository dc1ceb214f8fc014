"""Typed records of batch analysis: rendered by the CLI (text or JSON), built once here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ItemState = Literal["queued", "running", "retrying", "done", "already_done", "refused", "failed"]
ITEM_STATES: tuple[str, ...] = ("queued", "running", "retrying", "done", "already_done", "refused", "failed")
FINAL_STATES = frozenset({"done", "already_done", "refused", "failed"})


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Refusal(_Model):
    """A target refused at submit, and why (the intake's own message)."""

    target: str
    reason: str


class SubmitResult(_Model):
    """What `batch submit` did with each line of its file."""

    batch_id: str
    queued: int
    already_done: int
    refused: list[Refusal]
    duplicates: int
    """Lines naming a target already in the queue (its queueing lock): counted, not queued twice."""


class BatchStatus(_Model):
    """Where a batch stands: per-state counts and throughput over its finished items."""

    batch_id: str
    total: int
    counts: dict[str, int]
    finished: bool
    chunks_done: int
    elapsed_s: float | None
    projects_per_min: float | None
    chunks_per_s: float | None


class ItemReport(_Model):
    """One target of a batch: its state, run, verdict and timing."""

    position: int
    target: str
    state: ItemState
    run_id: str | None
    verdict: str | None
    chunks: int
    chunks_done: int
    tries: int
    seconds: float | None
    reason: str | None


class BatchReport(_Model):
    """`batch report`: the status plus every item."""

    batch_id: str
    created_at: str
    judge: str
    kb_version: str
    prompt: str
    status: BatchStatus
    items: list[ItemReport]
