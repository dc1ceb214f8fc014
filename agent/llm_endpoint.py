"""What an OpenAI-compatible endpoint accepts beyond the standard API: `chat_template_kwargs`.

vLLM passes `chat_template_kwargs` to the model's chat template (Qwen 3.x reads `enable_thinking`
there); other servers refuse unknown fields with HTTP 400. With GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS
`auto` the client sends them, and after a refusal that names them it stops sending them to that
endpoint for the life of the process; `always` and `never` skip the guessing.
"""

from __future__ import annotations

from typing import Any

from agent.settings import Settings

_REFUSED: set[str] = set()
"""Base URLs that refused `chat_template_kwargs` in this process."""


def template_kwargs_body(settings: Settings, **kwargs: Any) -> dict[str, Any]:
    """The `extra_body` to send: {"chat_template_kwargs": kwargs} where the endpoint takes it, else {}."""
    mode = settings.llm_chat_template_kwargs
    if mode == "never" or (mode == "auto" and settings.llm_base_url in _REFUSED):
        return {}
    return {"chat_template_kwargs": dict(kwargs)}


def note_refusal(settings: Settings, exc: Exception) -> bool:
    """True (and remembered) if `exc` is the endpoint refusing `chat_template_kwargs`: retry without them."""
    if settings.llm_chat_template_kwargs != "auto":
        return False
    status = getattr(exc, "status_code", None)
    if status not in (400, 422) or "chat_template_kwargs" not in str(exc):
        return False
    _REFUSED.add(str(settings.llm_base_url))
    return True
