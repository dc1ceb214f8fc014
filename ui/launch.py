"""Prepare and start the Chainlit server: app root, auth secret, migrations, then run chainlit.

Chainlit reads `.chainlit/config.toml` from its app root and keeps a session's uploads in its
`.files` folder, which it deletes when it stops. So every UI instance (host and port) gets its own
app root under GODOT_RAG_HOME/chainlit_app/ (never the checkout): stopping one UI never takes the
files of another on the same home. The committed config in `ui/assets/` is copied into it on
every start, with the allowed origins filled in.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from agent.settings import Settings

ASSETS = Path(__file__).resolve().parent / "assets"
APP = Path(__file__).resolve().parent / "app.py"
# Served by Chainlit from the app root's public folder: styles, button names, the product's logo.
PUBLIC_ASSETS = ("style.css", "app.js", "logo_light.svg", "logo_dark.svg", "favicon.svg", "login.svg")


def app_root(settings: Settings, *, host: str, port: int, origins: tuple[str, ...] = ()) -> Path:
    """Create this instance's Chainlit app root with the committed config, welcome page and styles.

    `origins` (GODOT_RAG_UI_ALLOWED_ORIGINS) become Chainlit's CORS list; the chat's own origin
    needs no entry (see agent/origins.py).
    """
    root = settings.home / "chainlit_app" / re.sub(r"[^A-Za-z0-9.-]", "_", f"{host}_{port}")
    (root / ".chainlit").mkdir(parents=True, exist_ok=True)
    (root / "public").mkdir(exist_ok=True)
    config = (ASSETS / "config.toml").read_text(encoding="utf-8")
    config = re.sub(r"(?m)^allow_origins = .*$", "allow_origins = " + json.dumps(list(origins)), config)
    (root / ".chainlit" / "config.toml").write_text(config, encoding="utf-8")
    shutil.copyfile(ASSETS / "chainlit.md", root / "chainlit.md")
    for name in PUBLIC_ASSETS:
        shutil.copyfile(ASSETS / name, root / "public" / name)
    _english_wording(root)
    return root


# Chainlit's English strings that read wrong here: users log in with a name, not an e-mail, and a
# chunk's trace is not a "tool" the assistant "used".
_WORDING = {
    ("auth", "login", "form", "email", "label"): "User name",
    ("auth", "login", "form", "email", "placeholder"): "your user name",
    ("auth", "login", "form", "email", "required"): "the user name is required",
    ("chat", "messages", "status", "used"): "Trace:",
    ("chat", "messages", "status", "using"): "Tracing",
    ("chat", "watermark"): "Verdicts cite the official Godot docs: check the evidence links.",
    ("auth", "login", "errors", "credentialssignin"): "Wrong user name or password. Check both and try again.",
    ("auth", "login", "errors", "credentialsSignin"): "Wrong user name or password. Check both and try again.",
    ("auth", "login", "errors", "default"): "Wrong user name or password, or the sign-in failed. Check both and try again.",
}


def _english_wording(root: Path) -> None:
    """Write en-US.json into the app root: Chainlit's own file with a few strings reworded."""
    import chainlit

    src = Path(chainlit.__file__).parent / "translations" / "en-US.json"
    strings = json.loads(src.read_text(encoding="utf-8"))
    for path, text in _WORDING.items():
        node = strings
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = text
    dest = root / ".chainlit" / "translations"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "en-US.json").write_text(json.dumps(strings, indent=2, ensure_ascii=False), encoding="utf-8")


def auth_secret(settings: Settings) -> str:
    """CHAINLIT_AUTH_SECRET from the environment, else one generated once into GODOT_RAG_HOME."""
    env = os.environ.get("CHAINLIT_AUTH_SECRET")
    if env:
        return env
    path = settings.home / "chainlit_auth_secret"
    if not path.exists():
        settings.home.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(48))
    return path.read_text().strip()


def launch(settings: Settings, *, host: str, port: int) -> int:
    """Migrate the database (Chainlit tables included), then run chainlit until it exits."""
    from agent.storage import DatabaseError, connection, migrate
    from agent.access import AccessConfig
    from agent.origins import allowed_origins

    # until chainlit runs, a SIGTERM exits like Ctrl-C does, so exit hooks release the database
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    try:
        access = AccessConfig.from_env()
        origins = allowed_origins()
    except ValueError as exc:  # a malformed GODOT_RAG_UI_USERS or GODOT_RAG_UI_ALLOWED_ORIGINS: no traceback
        print(f"ui: {exc}", file=sys.stderr)
        return 2
    if not access.any_login():
        print(
            "ui: no way to log in is configured; set GODOT_RAG_UI_USERS=name:password "
            "(or GODOT_RAG_UI_HEADER_AUTH, or GODOT_RAG_UI_ALLOW_ANONYMOUS=1)",
            file=sys.stderr,
        )
    try:
        with connection(settings) as conn:
            migrate(conn, settings)
    except DatabaseError as exc:
        print(f"ui: {exc}", file=sys.stderr)
        return 1
    root = app_root(settings, host=host, port=port, origins=origins)
    env = dict(os.environ)
    env.update(
        CHAINLIT_APP_ROOT=str(root),
        CHAINLIT_AUTH_SECRET=auth_secret(settings),
        GODOT_RAG_HOME=str(settings.home),
        HF_HUB_OFFLINE=env.get("HF_HUB_OFFLINE", "1"),
    )
    print(f"ui: http://{host}:{port}", file=sys.stderr)
    argv = [sys.executable, "-m", "chainlit", "run", str(APP), "--host", host, "--port", str(port), "--headless"]
    # Chainlit runs as a child so this process keeps holding the embedded Postgres (stopped when
    # its last user exits, see agent/storage/embedded.py); stop signals are passed on as SIGTERM:
    # a terminal's Ctrl-C already reached the child, and a second SIGINT makes uvicorn skip its
    # shutdown.
    proc = subprocess.Popen(argv, env=env, cwd=root)

    def forward(_signum: int, _frame: object) -> None:
        proc.send_signal(signal.SIGTERM)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    return proc.wait()
