"""A local HTTP server for a site written to disk, with the misbehaviours the crawler must survive.

It speaks HTTP/1.1 with keep-alive, sends ETag and Last-Modified, answers conditional requests with
304, and counts what it sent so tests can prove a re-crawl fetched no bodies.
"""

from __future__ import annotations

import hashlib
import json
import sys
import mimetypes
import threading
from collections import Counter
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

STATS_PATH = "/__stats__"  # counters as JSON, for a server running in another process


class SiteServer:
    """Serve `root` on a free 127.0.0.1 port in a background thread."""

    def __init__(
        self,
        root: Path,
        *,
        redirects: dict[str, str] | None = None,
        fail_first: dict[str, int] | None = None,
        content_types: dict[str, str] | None = None,
        no_length: set[str] | None = None,
    ) -> None:
        self.root = Path(root)
        self.redirects = dict(redirects or {})
        self.fail_first = dict(fail_first or {})
        self.content_types = dict(content_types or {})
        self.no_length = set(no_length or ())
        self.requests: Counter[str] = Counter()
        self.bodies: Counter[str] = Counter()
        self.not_modified: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.user_agents: set[str] = set()
        self.conditional_requests = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:<port>`."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str = "/en/stable/") -> str:
        """Absolute URL of a server path."""
        return self.origin + path

    def reset_counts(self) -> None:
        """Forget what was sent so far (between two crawls)."""
        with self._lock:
            for counter in (self.requests, self.bodies, self.not_modified, self.errors):
                counter.clear()
            self.conditional_requests = 0

    def stats(self) -> dict[str, int]:
        """Totals of what was served since the last reset."""
        with self._lock:
            return {
                "requests": sum(self.requests.values()),
                "bodies": sum(self.bodies.values()),
                "page_bodies": sum(n for p, n in self.bodies.items() if p.endswith(".html")),
                "not_modified": sum(self.not_modified.values()),
                "conditional_requests": self.conditional_requests,
            }

    def start(self) -> SiteServer:
        """Bind a free port and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"site": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="site-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut the server down and close its socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client closing its keep-alive connection
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    site: SiteServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        return  # keep test output quiet

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        site = self.site
        path = unquote(urlsplit(self.path).path)
        if path == STATS_PATH:
            return self._send(200, json.dumps(site.stats()).encode(), "application/json")
        with site._lock:
            site.requests[path] += 1
            site.user_agents.add(self.headers.get("User-Agent", ""))
            if self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since"):
                site.conditional_requests += 1
            failing = site.fail_first.get(path, 0) > 0
            if failing:
                site.fail_first[path] -= 1
                site.errors[path] += 1
        if failing:
            return self._send(500, b"server hiccup", "text/plain")
        if path in site.redirects:
            return self._send(301, b"", "text/plain", {"Location": site.redirects[path]})
        file = (site.root / path.lstrip("/")).resolve()
        if path.endswith("/"):
            file = file / "index.html"
        if site.root.resolve() not in file.parents or not file.is_file():
            return self._send(404, b"<h1>not found</h1>", "text/html")
        data = file.read_bytes()
        mtime = file.stat().st_mtime
        etag = '"' + hashlib.sha1(data).hexdigest()[:16] + '"'
        last_modified = formatdate(mtime, usegmt=True)
        headers = {"ETag": etag, "Last-Modified": last_modified}
        if self._unchanged(etag, mtime):
            with site._lock:
                site.not_modified[path] += 1
            return self._send(304, b"", None, headers)
        ctype = site.content_types.get(path) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if ctype.startswith("text/"):
            ctype += "; charset=utf-8"
        with site._lock:
            site.bodies[path] += 1
        self._send(200, data, ctype, headers, length=path not in site.no_length)

    def _unchanged(self, etag: str, mtime: float) -> bool:
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            return etag in [t.strip() for t in inm.split(",")]
        ims = self.headers.get("If-Modified-Since")
        if ims:
            try:
                return int(mtime) <= parsedate_to_datetime(ims).timestamp()
            except (TypeError, ValueError):
                return False
        return False

    def _send(
        self, status: int, body: bytes, ctype: str | None, headers: dict[str, str] | None = None, *, length: bool = True
    ) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if status == 304:
            self.end_headers()
            return
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    # `python -m tests.crawl.site_server ROOT`: serve ROOT, print the origin, stop when stdin closes.
    server = SiteServer(Path(sys.argv[1])).start()
    print(server.origin, flush=True)
    sys.stdin.read()
    server.stop()
