"""Chainlit handlers of the godot-rag web chat. Only handlers live here; see ui/chat.py and friends.

This file is the chainlit process's entry script (`godot-rag ui` runs `chainlit run ui/app.py`),
so importing it is start-up: that is when the login methods and allowed origins are read from
the environment, and the origin guard and the owner-only file route are put on Chainlit's app.
"""

from __future__ import annotations

import chainlit as cl
from chainlit.server import app as _server

from agent import origins
from agent.access import AccessConfig
from ui import chat, files, runtime
from ui.datalayer import make_data_layer

_access = AccessConfig.from_env()
origins.install(_server, origins.allowed_origins())
files.install(_server, files.OwnerFileStorage(files.files_root(runtime.settings())))


@cl.data_layer
def data_layer():
    """Threads, steps and feedback persist in the project's Postgres."""
    return make_data_layer(runtime.settings())


def password_login(username: str, password: str) -> cl.User | None:
    """Users from GODOT_RAG_UI_USERS; with none configured, nobody gets in this way."""
    if _access.check_password(username, password):
        return cl.User(identifier=username, metadata={"provider": "password"})
    return None


async def header_login(headers) -> cl.User | None:
    """The user a trusted proxy names in GODOT_RAG_UI_HEADER_AUTH, or `anonymous` if allowed."""
    name = _access.header_user(headers)
    return cl.User(identifier=name, metadata={"provider": "header"}) if name else None


# Password login is always on unless anonymous/header access is the only way in, so that
# Chainlit never runs without a login wall by accident.
if _access.users or not (_access.header or _access.allow_anonymous):
    cl.password_auth_callback(password_login)
if _access.header or _access.allow_anonymous:
    cl.header_auth_callback(header_login)


@cl.on_chat_start
async def on_chat_start() -> None:
    """Greet, with what can be sent (several languages), clickable examples and, while the knowledge base's
    vectors fill in, how far they have come."""
    await chat.greet()


@cl.on_message
async def on_message(message: cl.Message) -> None:
    """A snippet, files, a link or a follow-up question."""
    await chat.on_message(message)


@cl.on_chat_resume
async def on_chat_resume(thread) -> None:
    """A reopened thread: restore its run, offer Resume when it was interrupted."""
    await chat.on_resume(thread)


@cl.action_callback("try_example")
async def on_example_action(action: cl.Action) -> None:
    """Send one of the greeting's examples."""
    await chat.try_example(action.payload["example"])


@cl.action_callback("resume_analysis")
async def on_resume_action(action: cl.Action) -> None:
    """Continue the interrupted run from its checkpoint."""
    await action.remove()
    await chat.resume(action.payload["run_id"])
