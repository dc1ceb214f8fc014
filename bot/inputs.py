"""What the user asked about, read from slash-command options or a message, checked cheaply.

Everything here runs before the interaction is deferred, so it must not touch the network,
the disk or the database: only option values and attachment metadata (name, size).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from bot.config import BotConfig
from bot.errors import UserError

TEXT_SUFFIXES = (".gd", ".tscn", ".tres")
TEXT_NAMES = ("project.godot",)
ZIP_SUFFIXES = (".zip",)
_CODE_BLOCK = re.compile(r"```([A-Za-z0-9_+-]*)\n?(.*?)```", re.DOTALL)


@dataclass
class SourceSpec:
    """One thing to analyze: a snippet, an attachment or a GitHub URL."""

    kind: Literal["snippet", "file", "repo"]
    label: str
    """Short name for the thread and messages (file name, repo path, `snippet`)."""
    text: str | None = None
    attachment: Any = None
    """A discord.Attachment (or anything with filename, size and `await read()`)."""
    url: str | None = None


def extract_code_blocks(content: str) -> list[str]:
    """Bodies of ``` fenced blocks (```gdscript and bare ``` alike), in order, non-empty only."""
    return [m.group(2) for m in _CODE_BLOCK.finditer(content or "") if m.group(2).strip()]


def _is_zip(name: str) -> bool:
    return name.lower().endswith(ZIP_SUFFIXES)


def is_supported_attachment(filename: str) -> bool:
    """Whether a file name is one the bot analyzes."""
    low = filename.lower()
    return low.endswith(TEXT_SUFFIXES + ZIP_SUFFIXES) or low.rsplit("/", 1)[-1] in TEXT_NAMES


def check_attachment(attachment: Any, config: BotConfig) -> None:
    """Refuse unsupported types and oversized files using metadata only (nothing is downloaded)."""
    name = str(getattr(attachment, "filename", "") or "")
    if not is_supported_attachment(name):
        raise UserError(
            "Attach a .gd, .tscn, .tres, project.godot or .zip file "
            f"(got `{name[:80] or 'a file without a name'}`)."
        )
    cap = config.max_zip_bytes if _is_zip(name) else config.max_attachment_bytes
    size = int(getattr(attachment, "size", 0) or 0)
    if size > cap:
        raise UserError(f"`{name[:80]}` is {size:,} bytes; the limit for this kind of file is {cap:,} bytes.")
    if size == 0:
        raise UserError(f"`{name[:80]}` is empty.")


def check_repo_url(url: str) -> str:
    """Validate a GitHub URL with the intake's own validator (pure: no network); return it stripped."""
    from agent.intake import IntakeError, parse_github_url

    url = url.strip()
    try:
        parse_github_url(url)
    except IntakeError as exc:
        raise UserError(str(exc)) from exc
    return url


def repo_label(url: str) -> str:
    """`owner/repo` of a GitHub URL, for thread names."""
    path = url.split("github.com/", 1)[-1].strip("/")
    return "/".join(path.split("/")[:2]) or "repo"


def check_repo_allowed(member: Any, channel_id: int | None, config: BotConfig) -> None:
    """Apply GODOT_RAG_BOT_REPO_ROLES / _CHANNELS: repo analysis can be limited to roles and channels."""
    if config.repo_channels and str(channel_id) not in config.repo_channels:
        raise UserError("Repository analysis is not enabled in this channel.")
    if config.repo_roles:
        roles = getattr(member, "roles", None) or []
        names = {str(getattr(r, "id", "")) for r in roles} | {str(getattr(r, "name", "")) for r in roles}
        if not names & config.repo_roles:
            raise UserError("Repository analysis is limited to some roles on this server.")


def spec_from_options(
    *, code: str | None, file: Any, repo: str | None, member: Any, channel_id: int | None, config: BotConfig
) -> SourceSpec:
    """The one source given to /analyze, validated; exactly one of code, file, repo."""
    given = [name for name, value in (("code", code), ("file", file), ("repo", repo)) if value]
    if not given:
        raise UserError("Give one of `code`, `file` or `repo` to analyze.")
    if len(given) > 1:
        raise UserError(f"Give only one of `code`, `file` or `repo` (got {', '.join(given)}).")
    if code:
        blocks = extract_code_blocks(code)
        text = "\n\n".join(blocks) if blocks else code
        if not text.strip():
            raise UserError("The `code` option is empty.")
        return SourceSpec(kind="snippet", label="snippet", text=text)
    if file:
        check_attachment(file, config)
        return SourceSpec(kind="file", label=str(file.filename), attachment=file)
    assert repo is not None
    url = check_repo_url(repo)
    check_repo_allowed(member, channel_id, config)
    return SourceSpec(kind="repo", label=repo_label(url), url=url)


def spec_from_message(message: Any, config: BotConfig) -> SourceSpec:
    """The context-menu source: the first supported attachment, else the message's code blocks."""
    attachments = list(getattr(message, "attachments", None) or [])
    supported = [a for a in attachments if is_supported_attachment(str(a.filename))]
    if supported:
        check_attachment(supported[0], config)
        return SourceSpec(kind="file", label=str(supported[0].filename), attachment=supported[0])
    blocks = extract_code_blocks(getattr(message, "content", "") or "")
    if blocks:
        return SourceSpec(kind="snippet", label="snippet", text="\n\n".join(blocks))
    if attachments:
        check_attachment(attachments[0], config)  # raises with the reason
    raise UserError("That message has no ``` code block and no .gd, .tscn, project.godot or .zip attachment.")
