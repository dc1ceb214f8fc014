"""GitHub URLs: strict validation, then a shallow, sparse, hook-free fetch into a temp dir.

Only `https://github.com/<owner>/<repo>[/tree/<ref>[/<subdir>]]` is accepted; every other
host, scheme, IP, port or credential is refused by `parse_github_url`. `<ref>` is a branch,
a tag (either may contain `/`: the longest one the repository has wins, as on GitHub) or a
full commit sha.

Only what will be analysed is downloaded. The fetch is one commit deep and blob-less (the
commit and its trees); the file list comes from the trees, so binaries, docs and caches are
listed with their reason but their bytes never leave GitHub; then a sparse checkout of exactly
the analysed paths fetches their blobs in one batch. Real Godot repositories are mostly
assets, so this is the difference between reading a few hundred KB and refusing a 2 GB clone.

Every git step runs with no submodules, no LFS smudge, no hooks, no terminal prompt, no
user/system git config, no auto-maintenance, one overall timeout (the whole process group is
killed), and a watch on the temp dir's size while it runs, so the size cap holds during the
download, not only after it. The temp dir is always removed. Tests point the fetch at a local
repository with `origin_for_tests`; the URL check itself is never bypassed.
"""

from __future__ import annotations

import functools
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

from agent.intake.classify import CACHE_DIRS, classify
from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, check_counts, check_listed, safe_relative
from agent.intake.local import read_regular, special_file_reason
from agent.settings import Settings

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_GIT_MODE_LINK, _GIT_MODE_SUBMODULE = "120000", "160000"
_WATCH_EVERY = 0.1  # seconds between two looks at the download's size
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
    if host != "github.com" or parts.netloc.lower().split(":")[0] != "github.com":
        raise IntakeError(f"Refused {raw!r}: host {host or parts.netloc!r} is not github.com. {_ONLY}.")
    if port not in (None, 443) or parts.netloc.lower() not in ("github.com", "github.com:443"):
        raise IntakeError(
            f"Refused {raw!r}: port {'(empty)' if port is None else port} is not accepted "
            f"(only https on the default port 443). {_ONLY}."
        )
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


def _run(
    cmd: list[str],
    *,
    cwd: Path | None,
    deadline: float,
    what: str,
    timeout: float,
    watch: Callable[[], None] | None = None,
) -> bytes:
    """Run one git step; its stdout. IntakeError on failure, on the deadline, or when `watch` raises.

    `watch` runs every `_WATCH_EVERY` seconds while the step runs and once after it: whatever it
    raises stops the step (the process group is killed first).
    """
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
        while True:
            try:
                out, err = proc.communicate(timeout=min(_WATCH_EVERY, max(deadline - time.monotonic(), 0)))
                break
            except subprocess.TimeoutExpired:  # retrying communicate() loses no output
                if time.monotonic() >= deadline:
                    raise IntakeError(
                        f"Could not fetch {what}: timed out after {timeout:g} s (unreachable or too slow)."
                    ) from None
                if watch is not None:
                    watch()
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    if watch is not None:
        watch()
    if proc.returncode != 0:
        last = (err or b"").decode("utf-8", "replace").strip().splitlines()
        detail = last[-1] if last else f"git exited with {proc.returncode}"
        raise IntakeError(f"Could not fetch {what}: {detail[:200]}")
    return out or b""


def _dir_bytes(root: Path) -> int:
    """Bytes of the files under `root` now (files may vanish while git works: they count 0)."""
    total = 0
    for dirpath, _, filenames in os.walk(root, followlinks=False):
        for f in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                continue
    return total


def _size_watch(root: Path, limit: int, *, what: str, cap: int) -> Callable[[], None]:
    """A `_run` watch refusing the download once `root` holds more than `limit` bytes."""

    def watch() -> None:
        if _dir_bytes(root) > limit:
            raise IntakeError(f"Refused {what}: the download exceeds the total size limit of {cap:,} bytes.")

    return watch


@dataclass(frozen=True)
class _TreeFile:
    """One file of the fetched commit's tree: its path below the analysed folder, and git mode."""

    path: str
    mode: str


def _tree_files(listing: bytes, subdir: str | None) -> list[_TreeFile]:
    """Parse `git ls-tree -r -z --full-tree` output; paths made relative to `subdir`."""
    prefix = f"{subdir}/" if subdir else ""
    files = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode = meta.split(b" ", 1)[0].decode("ascii", "replace")
        path = raw_path.decode("utf-8", "surrogateescape")
        if prefix and not path.startswith(prefix):
            continue
        files.append(_TreeFile(path[len(prefix) :], mode))
    return files


def _plan(files: list[_TreeFile]) -> tuple[list[str], list[Entry]]:
    """Split the tree into the paths to download and the entries recorded without their bytes.

    Symlinks and submodules are never followed; a cache folder is one entry (as for a local
    directory); everything else that is not analysed keeps its path and its reason.
    """
    wanted: list[str] = []
    skipped: list[Entry] = []
    seen_caches: set[str] = set()
    for f in files:
        parts = f.path.split("/")
        cache = next((i for i, part in enumerate(parts[:-1]) if part in CACHE_DIRS), None)
        if cache is not None:
            folder = "/".join(parts[: cache + 1]) + "/"
            if folder not in seen_caches:
                seen_caches.add(folder)
                skipped.append(Entry(folder, 0, excluded=classify(folder + "x").reason))
            continue
        if f.mode == _GIT_MODE_LINK:
            skipped.append(Entry(f.path, 0, excluded="symbolic link (not followed)"))
        elif f.mode == _GIT_MODE_SUBMODULE:
            skipped.append(Entry(f.path, 0, excluded="git submodule (not fetched)"))
        elif "\n" in f.path or not f.path.isprintable():
            skipped.append(Entry(f.path, 0, excluded="unusual file name (not fetched)"))
        elif classify(f.path).include:
            wanted.append(f.path)
        else:
            skipped.append(Entry(f.path, 0))  # the classifier's reason; the bytes are never fetched
    return wanted, skipped


def _sparse_pattern(path: str) -> str:
    """A sparse-checkout (gitignore syntax) pattern matching exactly `path` from the root."""
    return "/" + re.sub(r"([\\*?\[\]!# ])", r"\\\1", path)


def _resolve_ref(
    target: GithubTarget, run: Callable[..., bytes], git: list[str], origin: str
) -> tuple[str, str | None]:
    """The ref to fetch and the subfolder, for refs that may contain `/`.

    `/tree/a/b/c` is ref `a/b` and subfolder `c` when the repository has a branch or tag `a/b`
    (the longest match wins, as on GitHub). A 40-hex ref is a commit and is fetched as it is.
    """
    if not target.ref:
        return "HEAD", None
    if not target.subdir or _SHA.match(target.ref):
        return target.ref, target.subdir
    out = run([*git, "ls-remote", "--heads", "--tags", "--", origin], cwd=None)
    names = set()
    for line in out.decode("utf-8", "replace").splitlines():
        ref = line.partition("\t")[2].removesuffix("^{}")
        for head in ("refs/heads/", "refs/tags/"):
            if ref.startswith(head):
                names.add(ref[len(head) :])
    segments = [target.ref, *target.subdir.split("/")]
    for cut in range(len(segments), 0, -1):
        name = "/".join(segments[:cut])
        if name in names:
            return name, "/".join(segments[cut:]) or None
    return target.ref, target.subdir  # the fetch says clearly that the branch does not exist


def resolve_commit(target: GithubTarget, settings: Settings, *, origin_for_tests: str | None = None) -> GithubTarget:
    """The same repository and subfolder pinned at the commit its ref names now (one `git ls-remote`).

    Batch analysis names a run after the commit, so a repository whose branch has not moved is
    not fetched again; `clone_entries` then fetches exactly that commit.
    """
    origin = origin_for_tests or target.clone_url
    git = ["git", "-c", "protocol.file.allow=always"] if origin_for_tests else ["git"]
    run = functools.partial(
        _run, deadline=time.monotonic() + settings.clone_timeout, what=target.url, timeout=settings.clone_timeout
    )
    ref, subdir = _resolve_ref(target, run, git, origin)
    if _SHA.match(ref):
        return GithubTarget(target.owner, target.repo, ref, subdir)
    out = run([*git, "ls-remote", "--", origin, ref], cwd=None).decode("utf-8", "replace")
    found: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        found[name] = sha
    for name in ("HEAD",) if ref == "HEAD" else (f"refs/tags/{ref}^{{}}", f"refs/tags/{ref}", f"refs/heads/{ref}"):
        if _SHA.match(found.get(name, "")):
            return GithubTarget(target.owner, target.repo, found[name], subdir)
    raise IntakeError(f"Could not fetch {target.url}: the repository has no branch or tag {ref!r}.")


def clone_entries(
    target: GithubTarget, settings: Settings, *, origin_for_tests: str | None = None
) -> list[Entry]:
    """Fetch the analysed files, read them into memory, and remove the temp dir before returning."""
    origin = origin_for_tests or target.clone_url
    what = target.url
    timeout, cap = settings.clone_timeout, settings.max_total_bytes
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
        "-c",
        "maintenance.auto=false",
        "-c",
        "gc.auto=0",
    ]
    if origin_for_tests:
        git += ["-c", "protocol.file.allow=always"]
    tmp = Path(tempfile.mkdtemp(prefix="godot-rag-clone-"))
    try:
        repo = tmp / "repo"
        deadline = time.monotonic() + timeout
        # every step shares one deadline: the timeout is for the whole fetch
        run = functools.partial(_run, deadline=deadline, what=what, timeout=timeout)
        ref, subdir = _resolve_ref(target, run, git, origin)
        run([*git, "init", "--quiet", str(repo)], cwd=tmp)
        run([*git, "remote", "add", "origin", origin], cwd=repo)
        # the commit and its trees only: file names and modes, no file contents
        trees_watch = _size_watch(tmp, cap, what=what, cap=cap)
        fetch = ["fetch", "--quiet", "--depth", "1", "--filter=blob:none", "--no-tags"]
        run([*git, *fetch, "--no-recurse-submodules", "origin", ref], cwd=repo, watch=trees_watch)
        listing = run([*git, "ls-tree", "-r", "-z", "--full-tree", "FETCH_HEAD"], cwd=repo)
        files = _tree_files(listing, subdir)
        if subdir and not files:
            raise IntakeError(
                f"Could not fetch {what}: the folder {subdir!r} does not exist in the repository."
            )
        wanted, skipped = _plan(files)
        check_listed(len(wanted) + len(skipped), settings, what=what)
        check_counts(len(wanted), 0, settings, what=what)  # only the analysed files are downloaded
        entries = skipped
        if wanted:
            info = repo / ".git" / "info"
            info.mkdir(parents=True, exist_ok=True)
            prefix = f"{subdir}/" if subdir else ""
            patterns = "".join(_sparse_pattern(prefix + p) + "\n" for p in wanted)
            (info / "sparse-checkout").write_text(patterns)
            run([*git, "config", "core.sparseCheckout", "true"], cwd=repo)
            # the blobs of the analysed files, in one batch; the pack plus the checked-out copy
            # of files within the cap stay under twice the cap (plus the trees already here)
            blobs_watch = _size_watch(tmp, _dir_bytes(tmp) + 2 * cap, what=what, cap=cap)
            run([*git, "checkout", "--quiet", "FETCH_HEAD"], cwd=repo, watch=blobs_watch)
            entries = entries + _read_wanted(repo / subdir if subdir else repo, wanted, settings, what=what)
        return sorted(entries, key=lambda e: e.path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read_wanted(root: Path, wanted: list[str], settings: Settings, *, what: str) -> list[Entry]:
    """Entries of the checked-out files, read now: the temp dir is deleted when intake returns."""
    entries: list[Entry] = []
    total = 0
    for rel in wanted:
        full = root / rel
        try:
            st = full.lstat()
        except OSError:
            entries.append(Entry(rel, 0, excluded="not in the checkout (could not be fetched)"))
            continue
        total += st.st_size
        if st.st_size > settings.max_file_bytes:
            entries.append(Entry(rel, st.st_size))  # no reader: expansion states the size limit
            continue
        data = read_regular(full, settings.max_file_bytes)
        if data is None:
            entries.append(Entry(rel, 0, excluded=special_file_reason(full) or "not a regular file"))
            continue
        entries.append(Entry(rel, st.st_size, read=lambda data=data: data))
    check_counts(len(entries), total, settings, what=what)
    return entries
