"""Conversation memory in Postgres through `langchain-postgres` (`PostgresChatMessageHistory`).

One history per chat thread: a web-chat thread (`web:<chainlit thread id>`) or a Discord thread
(`discord:<thread id>`). The library wants a UUID session id, so the key is mapped to a UUID5.
It reads rows by position, so it gets its own plain psycopg connection (the app's pools return
dict rows); the table is created by the library itself, like the checkpointer's `.setup()`.
"""

from __future__ import annotations

import uuid

import psycopg
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_postgres import PostgresChatMessageHistory

TABLE = "godot_rag_chat_history"
_NAMESPACE = uuid.UUID("6f0c1c1e-6a43-4d8e-9d4e-3f1f0f2d9a51")
_MAX_TEXT = 8000


def session_id(thread_key: str) -> str:
    """The UUID the history of one chat thread is stored under."""
    return str(uuid.uuid5(_NAMESPACE, thread_key))


class ConversationMemory:
    """Read and append the turns of one chat thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._ready = False

    async def _history(self, conn: psycopg.AsyncConnection, thread_key: str) -> PostgresChatMessageHistory:
        if not self._ready:
            await PostgresChatMessageHistory.acreate_tables(conn, TABLE)
            self._ready = True
        return PostgresChatMessageHistory(TABLE, session_id(thread_key), async_connection=conn)

    async def turns(self, thread_key: str, limit: int = 12) -> list[tuple[str, str]]:
        """The last `limit` (role, text) turns of the thread, oldest first; role is user or assistant."""
        async with await psycopg.AsyncConnection.connect(self.url) as conn:
            messages: list[BaseMessage] = await (await self._history(conn, thread_key)).aget_messages()
        out = [("user" if m.type == "human" else "assistant", str(m.content)) for m in messages]
        return out[-limit:]

    async def add(self, thread_key: str, question: str, answer: str) -> None:
        """Append one exchange."""
        async with await psycopg.AsyncConnection.connect(self.url) as conn:
            history = await self._history(conn, thread_key)
            await history.aadd_messages([HumanMessage(content=question[:_MAX_TEXT]),
                                         AIMessage(content=answer[:_MAX_TEXT])])
