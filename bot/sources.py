"""Read what the user gave (the attachment's bytes) and hand it to `agent.intake.from_source`.

Runs after the deferral.
"""

from __future__ import annotations

from typing import Any

from agent.intake import IntakeError, IntakeResult, from_source
from bot.errors import UserError
from bot.inputs import SourceSpec


async def build_intake(
    spec: SourceSpec,
    question: str,
    settings: Any,
    *,
    max_bytes: int | None = None,
    github_origin_for_tests: str | None = None,
) -> IntakeResult:
    """The IntakeResult for one source; intake refusals become short user-facing errors."""
    try:
        if spec.kind == "snippet":
            assert spec.text is not None
            return await from_source(text=spec.text, prompt=question, settings=settings)
        if spec.kind == "file":
            data = await spec.attachment.read()
            if max_bytes is not None and len(data) > max_bytes:  # the metadata lied
                raise UserError(f"`{spec.label[:80]}` is over the size limit of {max_bytes:,} bytes.")
            return await from_source(files=[(str(spec.attachment.filename), data)], prompt=question,
                                     settings=settings)
        assert spec.url is not None
        return await from_source(url=spec.url, prompt=question, settings=settings,
                                 github_origin_for_tests=github_origin_for_tests)
    except IntakeError as exc:
        raise UserError(str(exc)) from exc
