"""GitHub URLs: strict validation, then a shallow, sparse, hook-free clone into a temp dir.

Only `https://github.com/<owner>/<repo>[/tree/<ref>[/<subdir>]]` is accepted; every other
host, scheme, IP, port or credential is refused by `parse_github_url`. The clone runs with
no submodules, no LFS smudge, no hooks, no terminal prompt, no user/system git config, an
overall timeout (the whole process group is killed) and a size cap, and its temp dir is
always removed. Tests point the clone at a local repository with `origin_for_tests`; the
URL check itself is never bypassed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agent.intake.classify import classify
from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, safe_relative
from agent.intake.local import directory_entries
from agent.settings import Settings

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")
_ONLY = "Only https://github.com/<owner>/<repo> URLs (optionally /tree/<ref>/<subdir>) are accepted"


@dataclass(frozen=True)
class GithubTarget:
    """A validated GitHub repository, with an optional ref and subfolder."""

    owner: str
    repo: str
    ref: str | None = None
    subdir: str | None = None

    @property
    def clone_url(self) -> str:
        """The https clone URL (only ever github.com)."""
        return f"https://github.com/{self.owner}/{self.repo}.git"

    @property
    def url(self) -> str:
        """The canonical web URL, used in messages and as the source file."""
        tail = f"/tree/{self.ref}" + (f"/{self.subdir}" if self.subdir else "") if self.ref else ""
        return f"https://github.com/{self.owner}/{self.repo}{tail}"


def parse_github_url(url: str) -> GithubTarget:
    """Validate a GitHub URL; IntakeError for any other host, scheme, IP, localhost or form."""
    raw = (url or "").strip()
    if not raw:
        raise IntakeError(f"Empty URL. {_ONLY}.")
    if raw.startswith("git@") or "://" not in raw:
        raise IntakeError(f"Refused {raw!r}: SSH and scheme-less addresses are not accepted. {_ONLY}.")
    parts = urlsplit(raw)
    scheme = parts.scheme.lower()
    if scheme != "https":
        raise IntakeError(f"Refused {raw!r}: the {scheme or 'missing'}:// scheme is not accepted. {_ONLY}.")
    if parts.username or parts.password or "@" in parts.netloc:
        raise IntakeError(f"Refused {raw!r}: credentials in URLs are not accepted. {_ONLY}.")
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError as exc:
        raise IntakeError(f"Refused {raw!r}: invalid port. {_ONLY}.") from exc
    if (
        host != "github.com"
        or port not in (None, 443)
        or parts.netloc.lower() not in ("github.com", "github.com:443")
    ):
        raise IntakeError(f"Refused {raw!r}: host {host or parts.netloc!r} is not github.com. {_ONLY}.")
    if parts.query or parts.fragment:
        raise IntakeError(f"Refused {raw!r}: query strings and fragments are not accepted. {_ONLY}.")
    segs = [unquote(s) for s in parts.path.split("/") if s]
    if len(segs) < 2:
        raise IntakeError(f"Refused {raw!r}: missing owner or repository. {_ONLY}.")
    owner, repo = segs[0], segs[1]
    if repo.endswith(".git"):
        repo = repo[:-4]
    if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
        raise IntakeError(f"Refused {raw!r}: invalid owner or repository name. {_ONLY}.")
    rest = segs[2:]
    if not rest:
        return GithubTarget(owner, repo)
    if rest[0] != "tree" or len(rest) < 2:
        raise IntakeError(
            f"Refused {raw!r}: only repository roots and /tree/<ref>/<subdir> are accepted. {_ONLY}."
        )
    ref = rest[1]
    if not _REF.match(ref) or ref.startswith("-") or ".." in ref:
        raise IntakeError(f"Refused {raw!r}: invalid branch or tag name. {_ONLY}.")
    subdir = safe_relative("/".join(rest[2:]), where=raw) if len(rest) > 2 else None
    return GithubTarget(owner, repo, ref, subdir)


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ASKPASS="true",
        SSH_ASKPASS="true",
        GIT_PROTOCOL_FROM_USER="0",
    )
    return env


def _run(cmd: list[str], *, cwd: Path | None, deadline: float, what: str, timeout: float) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        raise IntakeError(f"Could not fetch {what}: timed out after {timeout:g} s (unreachable or too slow).")
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=_git_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _, err = proc.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise IntakeError(
            f"Could not fetch {what}: timed out after {timeout:g} s (unreachable or too slow)."
        ) from None
    if proc.returncode != 0:
        last = (err or b"").decode("utf-8", "replace").strip().splitlines()
        detail = last[-1] if last else f"git exited with {proc.returncode}"
        raise IntakeError(f"Could not fetch {what}: {detail[:200]}")


def clone_entries(
    target: GithubTarget, settings: Settings, *, origin_for_tests: str | None = None
) -> list[Entry]:
    """Clone, read every file into memory, and remove the clone before returning."""
    origin = origin_for_tests or target.clone_url
    what = target.url
    git = [
        "git",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.symlinks=false",
        "-c",
        "submodule.recurse=false",
        "-c",
        "filter.lfs.smudge=",
        "-c",
        "filter.lfs.process=",
        "-c",
        "filter.lfs.required=false",
    ]
    if origin_for_tests:
        git += ["-c", "protocol.file.allow=always"]
    tmp = Path(tempfile.mkdtemp(prefix="godot-rag-clone-"))
    try:
        repo = tmp / "repo"
        deadline = time.monotonic() + settings.clone_timeout
        clone = [
            *git,
            "clone",
            "--quiet",
            "--depth",
            "1",
            "--filter=blob:none",
            "--sparse",
            "--no-checkout",
            "--no-recurse-submodules",
            "--single-branch",
        ]
        if target.ref:
            clone += ["--branch", target.ref]
        _run(
            [*clone, "--", origin, str(repo)],
            cwd=tmp,
            deadline=deadline,
            what=what,
            timeout=settings.clone_timeout,
        )
        if target.subdir:
            sparse = [*git, "sparse-checkout", "set", "--", target.subdir]
        else:
            sparse = [*git, "sparse-checkout", "disable"]
        _run(sparse, cwd=repo, deadline=deadline, what=what, timeout=settings.clone_timeout)
        _run(
            [*git, "checkout", "--quiet"],
            cwd=repo,
            deadline=deadline,
            what=what,
            timeout=settings.clone_timeout,
        )
        root = repo / target.subdir if target.subdir else repo
        if not root.is_dir():
            raise IntakeError(
                f"Could not fetch {what}: the folder {target.subdir!r} does not exist in the repository."
            )
        _check_disk_size(repo, settings, what=what)
        entries = directory_entries(root, settings, what=what)
        # read now: the clone is deleted when we return
        return [
            Entry(e.path, e.size, read=_preread(e, settings), excluded=e.excluded) if e.read else e
            for e in entries
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _preread(entry: Entry, settings: Settings) -> Callable[[], bytes] | None:
    """Read a file that will be analysed now, while the clone still exists; skip the rest."""
    if entry.read is None or not classify(entry.path).include or entry.size > settings.max_file_bytes:
        return None
    data = entry.read()
    return lambda: data


def _check_disk_size(repo: Path, settings: Settings, *, what: str) -> None:
    total = 0
    for dirpath, dirnames, filenames in os.walk(repo, followlinks=False):
        if ".git" in dirnames and Path(dirpath) == repo:
            dirnames.remove(".git")
        for f in filenames:
            total += (Path(dirpath) / f).lstat().st_size
        if total > settings.max_total_bytes:
            raise IntakeError(
                f"Refused {what}: the checkout exceeds the total size limit "
                f"of {settings.max_total_bytes:,} bytes."
            )
