"""Fetch what the user gave (download, clone) and hand it to agent.intake. Runs after the deferral."""

from __future__ import annotations

import asyncio
from typing import Any

from agent.intake import IntakeError, IntakeResult, intake_github, intake_snippet, intake_uploads
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
    """The IntakeResult for one source; intake refusals become short user-facing errors.

    Intake is synchronous (zip reading, git clone), so it runs in a worker thread and the
    event loop keeps serving other users meanwhile.
    """
    try:
        if spec.kind == "snippet":
            assert spec.text is not None
            return await asyncio.to_thread(intake_snippet, spec.text, prompt=question, settings=settings)
        if spec.kind == "file":
            data = await spec.attachment.read()
            if max_bytes is not None and len(data) > max_bytes:  # the metadata lied
                raise UserError(f"`{spec.label[:80]}` is over the size limit of {max_bytes:,} bytes.")
            return await asyncio.to_thread(
                intake_uploads, [(str(spec.attachment.filename), data)], prompt=question, settings=settings
            )
        assert spec.url is not None
        return await asyncio.to_thread(
            intake_github,
            spec.url,
            prompt=question,
            settings=settings,
            origin_for_tests=github_origin_for_tests,
        )
    except IntakeError as exc:
        raise UserError(str(exc)) from exc
