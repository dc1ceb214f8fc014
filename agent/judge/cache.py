"""LLM judgment cache: in-process always, plus `godot_rag.llm_judgment_cache` when given connections."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from psycopg.types.json import Jsonb

from agent.judge.base import JudgeInput
from agent.models import Judgment

ConnFactory = Callable[[], AbstractContextManager[Any]]


def cache_key(inp: JudgeInput, model: str, prompt_version: str) -> str:
    """sha256 of (prompt, chunk sha, sorted evidence ids, model, prompt version)."""
    parts = [inp.prompt, inp.chunk.sha256, sorted(inp.evidence.ids()), model, prompt_version,
             inp.project_dimension]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class JudgmentCache:
    """Get/put validated judgments; the DB part is sync (call it via asyncio.to_thread)."""

    def __init__(self, conn_factory: ConnFactory | None = None, *, memory_items: int = 4096):
        self.conn_factory = conn_factory
        self._memory: OrderedDict[str, Judgment] = OrderedDict()
        self._limit = memory_items

    def get(self, key: str) -> Judgment | None:
        if key in self._memory:
            self._memory.move_to_end(key)
            return self._memory[key]
        if self.conn_factory is None:
            return None
        with self.conn_factory() as conn:
            row = conn.execute("SELECT judgment FROM godot_rag.llm_judgment_cache WHERE cache_key = %s",
                               (key,)).fetchone()
        if row is None:
            return None
        judgment = Judgment.model_validate(row["judgment"])
        self._remember(key, judgment)
        return judgment

    def put(self, key: str, judgment: Judgment, *, model: str, prompt_version: str) -> None:
        self._remember(key, judgment)
        if self.conn_factory is None:
            return
        with self.conn_factory() as conn:
            conn.execute(
                "INSERT INTO godot_rag.llm_judgment_cache (cache_key, model, prompt_version, judgment)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (cache_key) DO NOTHING",
                (key, model, prompt_version, Jsonb(judgment.model_dump(mode="json"))),
            )

    def _remember(self, key: str, judgment: Judgment) -> None:
        self._memory[key] = judgment
        self._memory.move_to_end(key)
        while len(self._memory) > self._limit:
            self._memory.popitem(last=False)
