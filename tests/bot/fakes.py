"""Recording fakes of Discord's network boundary only: interaction responses, channels, messages, the CDN.

Everything else in the bot tests is real: discord.py's Embed/File/AllowedMentions/Attachment,
the bot's cogs, the analysis service, the database, the parser and the model.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import discord

_ids = itertools.count(10_000)


class Recorder:
    """One ordered log of every network call, with monotonic timestamps."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, str, dict[str, Any]]] = []

    def add(self, call: str, /, **kwargs: Any) -> None:
        self.calls.append((time.monotonic(), call, kwargs))

    def names(self) -> list[str]:
        return [c[1] for c in self.calls]

    def first(self, name: str) -> tuple[float, str, dict[str, Any]]:
        return next(c for c in self.calls if c[1] == name)

    def all(self, name: str) -> list[tuple[float, str, dict[str, Any]]]:
        return [c for c in self.calls if c[1] == name]


@dataclass
class FakeRole:
    id: int
    name: str


@dataclass
class FakeUser:
    id: int
    name: str = "tester"
    roles: list[FakeRole] = field(default_factory=list)


class FakeMessage:
    """A sent message: keeps what was sent and every edit."""

    def __init__(self, rec: Recorder, channel: Any, **kwargs: Any) -> None:
        self.id = next(_ids)
        self.rec = rec
        self.channel = channel
        self.content: str | None = kwargs.get("content")
        self.embeds: list[discord.Embed] = list(
            kwargs.get("embeds") or ([kwargs["embed"]] if kwargs.get("embed") else [])
        )
        self.files: list[discord.File] = list(
            kwargs.get("files") or ([kwargs["file"]] if kwargs.get("file") else [])
        )
        self.kwargs = kwargs
        self.edits: list[tuple[float, dict[str, Any]]] = []

    async def edit(self, **kwargs: Any) -> FakeMessage:
        self.rec.add("message.edit", message_id=self.id, **kwargs)
        self.edits.append((time.monotonic(), kwargs))
        if "content" in kwargs:
            self.content = kwargs["content"]
        return self


class FakeThread:
    """A thread: it takes messages but holds no threads of its own (like discord.Thread)."""

    def __init__(self, rec: Recorder, *, name: str = "thread") -> None:
        self.id = next(_ids)
        self.rec = rec
        self.name = name
        self.mention = f"<#{self.id}>"
        self.sent: list[FakeMessage] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> FakeMessage:
        self.rec.add("channel.send", channel_id=self.id, content=content, **kwargs)
        msg = FakeMessage(self.rec, self, content=content, **kwargs)
        self.sent.append(msg)
        return msg

    async def fetch_message(self, message_id: int) -> FakeMessage:
        self.rec.add("channel.fetch_message", message_id=message_id)
        for m in self.sent:
            if m.id == message_id:
                return m
        raise discord.NotFound(_FakeResponse(404), "unknown message")


class FakeChannel(FakeThread):
    """A text channel: messages, and threads started in it."""

    def __init__(self, rec: Recorder, *, name: str = "general") -> None:
        super().__init__(rec, name=name)
        self.threads: list[FakeThread] = []

    async def create_thread(self, *, name: str, **kwargs: Any) -> FakeThread:
        self.rec.add("channel.create_thread", name=name, **kwargs)
        thread = FakeThread(self.rec, name=name)
        self.threads.append(thread)
        return thread


class _FakeResponse:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "fake"


class FakeInteractionResponse:
    """`interaction.response`: may be used exactly once, like Discord's."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self._done = False

    def is_done(self) -> bool:
        return self._done

    def _use(self) -> None:
        if self._done:
            raise AssertionError("interaction responded to twice")
        self._done = True

    async def defer(self, **kwargs: Any) -> None:
        self._use()
        self.rec.add("response.defer", **kwargs)

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        self._use()
        self.rec.add("response.send_message", content=content, **kwargs)

    async def send_modal(self, modal: Any) -> None:
        self._use()
        self.rec.add("response.send_modal", modal=modal)


class FakeFollowup:
    def __init__(self, rec: Recorder, channel: FakeChannel) -> None:
        self.rec = rec
        self.channel = channel
        self.sent: list[FakeMessage] = []

    async def send(self, content: str | None = None, **kwargs: Any) -> FakeMessage:
        self.rec.add("followup.send", content=content, **kwargs)
        msg = FakeMessage(self.rec, self.channel, content=content, **kwargs)
        self.sent.append(msg)
        return msg


class FakeInteraction:
    """The slice of discord.Interaction the bot uses, recording every network call."""

    def __init__(
        self, rec: Recorder, *, user: FakeUser, channel: FakeChannel, guild_id: int | None = 1
    ) -> None:
        self.rec = rec
        self.user = user
        self.channel = channel
        self.channel_id = channel.id
        self.guild_id = guild_id
        self.response = FakeInteractionResponse(rec)
        self.followup = FakeFollowup(rec, channel)
        self.created = time.monotonic()

    def ephemeral_texts(self) -> list[str]:
        out = []
        for _t, name, kw in self.rec.calls:
            if name in ("response.send_message", "followup.send") and kw.get("content"):
                out.append(kw["content"])
        return out


class FakeCDN:
    """Discord's CDN for attachment downloads (`state.http.get_from_cdn`)."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self.blobs: dict[str, bytes] = {}

    async def get_from_cdn(self, url: str) -> bytes:
        self.rec.add("cdn.get", url=url)
        return self.blobs[url]


class _State:
    def __init__(self, http: FakeCDN) -> None:
        self.http = http


def make_attachment(
    cdn: FakeCDN, filename: str, data: bytes, *, size: int | None = None
) -> discord.Attachment:
    """A real discord.Attachment whose download goes to the fake CDN."""
    aid = next(_ids)
    url = f"https://cdn.discordapp.com/attachments/1/{aid}/{filename}"
    cdn.blobs[url] = data
    payload = {
        "id": aid,
        "size": len(data) if size is None else size,
        "filename": filename,
        "url": url,
        "proxy_url": url,
    }
    return discord.Attachment(data=payload, state=_State(cdn))  # type: ignore[arg-type]


class FakeSourceMessage:
    """A message a user right-clicks (context menu): content and attachments; threads can start on it."""

    def __init__(
        self,
        rec: Recorder,
        channel: FakeChannel,
        content: str = "",
        attachments: list[discord.Attachment] | None = None,
    ) -> None:
        self.id = next(_ids)
        self.rec = rec
        self.channel = channel
        self.content = content
        self.attachments = attachments or []

    async def create_thread(self, *, name: str, **kwargs: Any) -> FakeThread:
        self.rec.add("message.create_thread", name=name, **kwargs)
        thread = FakeThread(self.rec, name=name)
        self.channel.threads.append(thread)
        return thread


def every_text(rec: Recorder) -> list[str]:
    """All user-visible text the bot sent: contents, thread names, embed parts, file names."""
    out: list[str] = []
    for _t, _call, kw in rec.calls:
        for key in ("content", "name"):
            if isinstance(kw.get(key), str):
                out.append(kw[key])
        embeds = list(kw.get("embeds") or []) + ([kw["embed"]] if kw.get("embed") else [])
        for e in embeds:
            out += [e.title or "", e.description or "", e.footer.text or ""]
            for f in e.fields:
                out += [f.name or "", f.value or ""]
        for f in kw.get("files") or []:
            out.append(f.filename)
    return out


def assert_no_mentions_allowed(rec: Recorder) -> None:
    """Every send/edit carried allowed_mentions=none."""
    for _t, name, kw in rec.calls:
        if name in ("channel.send", "message.edit", "followup.send", "response.send_message"):
            am = kw.get("allowed_mentions")
            assert isinstance(am, discord.AllowedMentions), (name, kw)
            assert am.to_dict() == {"parse": []}, (name, am.to_dict())
