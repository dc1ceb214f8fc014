"""The answer in the web chat: streamed token by token, replaced by the validated text, remembered per thread.

`AnswerStream` takes the graph's `answer_token` / `answer` events: tokens stream into one message,
and the final `answer` event sets the text that passed the validator (the template's when the LLM's
was rejected). Follow-ups read and extend the thread's conversation memory (agent.answer.memory).
"""

from __future__ import annotations

from typing import Any

import chainlit as cl

from ui import messages

ANSWER_EVENTS = ("answer_token", "answer")


class AnswerStream:
    """One chat message that shows the answer as it is written."""

    def __init__(self) -> None:
        self.message: cl.Message | None = None
        self.final: str | None = None

    async def on_event(self, event: Any) -> bool:
        """Handle an answer event (True), or leave the event to the progress view (False)."""
        if event.kind not in ANSWER_EVENTS:
            return False
        if self.message is None:
            self.message = cl.Message(content="")
            if event.kind == "answer_token":  # unchecked text: say so until the validated answer replaces it
                await self.message.stream_token(messages.ANSWER_DRAFT)
        if event.kind == "answer_token":
            await self.message.stream_token(event.message or "")
        else:
            self.final = event.message or ""
        return True

    async def finish(self, report: dict[str, Any]) -> None:
        """Show the stored answer as final (also when nothing was streamed, e.g. after a resume)."""
        text = self.final or (report.get("answer") or {}).get("markdown")
        if not text:
            return
        if self.message is None:
            self.message = cl.Message(content="")
        self.message.content = text
        await self.message.send()


def thread_key() -> str:
    """The conversation-memory key of this chat thread."""
    return f"web:{cl.context.session.thread_id}"


async def history(svc: Any) -> list[tuple[str, str]]:
    """The thread's conversation so far."""
    from agent.answer.memory import ConversationMemory

    return await ConversationMemory(svc.url).turns(thread_key())


async def remember(svc: Any, question: str, answer: str) -> None:
    """Append one exchange to the thread's memory."""
    from agent.answer.memory import ConversationMemory

    await ConversationMemory(svc.url).add(thread_key(), question, answer)
