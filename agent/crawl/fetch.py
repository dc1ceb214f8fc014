"""Polite HTTP fetching: bounded concurrency, per-host pacing, robots.txt, retries, size and redirect caps.

Redirects are followed by hand so every hop is checked against robots.txt and a loop is reported
as a loop rather than as a generic "too many redirects".
"""

from __future__ import annotations

import asyncio
import logging
import time
import urllib.robotparser
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from agent.crawl.errors import PageError

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = ("text/html", "application/xhtml+xml")
Validators = Callable[[str], tuple[str | None, str | None]]
MAX_RETRY_AFTER = 60.0


@dataclass(frozen=True, kw_only=True)
class FetchPolicy:
    """How hard the crawler may hit a site."""

    user_agent: str
    """Sent on every request and matched against robots.txt."""
    concurrency: int = 4
    """Requests in flight at once."""
    delay: float = 0.25
    """Minimum seconds between request starts on one host (raised to robots.txt Crawl-delay)."""
    timeout: float = 30.0
    """Seconds per request (connect, read, write, pool)."""
    max_retries: int = 3
    """Extra attempts after a 5xx/429 or a timeout/connection error."""
    backoff: float = 0.5
    """First retry waits this long; each further retry doubles it."""
    max_bytes: int = 10_000_000
    """Largest response body accepted."""
    max_redirects: int = 10
    """Longest redirect chain followed."""


@dataclass(frozen=True, kw_only=True)
class Fetched:
    """One successful fetch: a body (status 200) or a confirmation that the saved copy is current (304)."""

    url: str
    final_url: str
    status: int
    body: bytes | None
    content_type: str
    etag: str | None
    last_modified: str | None
    attempts: int

    @property
    def not_modified(self) -> bool:
        """The server answered 304: keep the existing file."""
        return self.status == 304


class Fetcher:
    """Fetches URLs over one pooled httpx client, following the policy and the site's robots.txt."""

    def __init__(self, client: httpx.AsyncClient, policy: FetchPolicy) -> None:
        self.client = client
        self.policy = policy
        self.delay = policy.delay
        self._robots: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        self._slots = asyncio.Semaphore(max(1, policy.concurrency))
        self._host_locks: dict[str, asyncio.Lock] = {}
        self._host_next: dict[str, float] = {}
        self.requests_sent = 0

    @classmethod
    def client_for(cls, policy: FetchPolicy) -> httpx.AsyncClient:
        """The pooled client the policy implies (no automatic redirects: we follow them ourselves)."""
        n = max(1, policy.concurrency)
        return httpx.AsyncClient(
            headers={"User-Agent": policy.user_agent, "Accept": "text/html,application/xhtml+xml,*/*;q=0.5"},
            timeout=httpx.Timeout(policy.timeout),
            limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
            follow_redirects=False,
        )

    async def load_robots(self, url: str) -> None:
        """Read the host's robots.txt once; a missing file allows everything, 401/403 forbid everything."""
        origin = _origin(url)
        if origin in self._robots:
            return
        parser = urllib.robotparser.RobotFileParser(origin + "/robots.txt")
        try:
            await self._pace(origin)
            response = await self.client.get(origin + "/robots.txt", follow_redirects=True)
        except httpx.HTTPError as exc:
            log.warning("robots.txt at %s unreadable (%s); crawling without it", origin, exc)
            self._robots[origin] = None
            return
        if response.status_code in (401, 403):
            parser.disallow_all = True
        elif response.status_code >= 400:
            if response.status_code >= 500:
                log.warning("robots.txt at %s answered HTTP %s; crawling without it", origin, response.status_code)
            parser.allow_all = True
        else:
            parser.parse(response.text.splitlines())
            crawl_delay = parser.crawl_delay(self.policy.user_agent)
            if crawl_delay is not None and float(crawl_delay) > self.delay:
                self.delay = float(crawl_delay)
        self._robots[origin] = parser

    def allowed(self, url: str) -> bool:
        """robots.txt verdict for our User-Agent (True when the host has no usable robots.txt)."""
        parser = self._robots.get(_origin(url))
        return parser is None or parser.can_fetch(self.policy.user_agent, url)

    async def get(
        self, url: str, *, html: bool = True, validators: Validators | None = None, within: str | None = None
    ) -> Fetched:
        """Fetch one URL with retries; raise PageError with a readable reason when it cannot be had.

        `validators(hop_url)` gives the (ETag, Last-Modified) of a saved copy of that URL, if any; they
        are sent as If-None-Match / If-Modified-Since on each hop, so a moved but unchanged page is a 304.
        With `within`, a redirect to a URL outside that prefix fails instead of being followed.
        """
        await self.load_robots(url)
        attempts = 0
        while True:
            attempts += 1
            try:
                return await self._follow(url, validators, html=html, attempts=attempts, within=within)
            except _Retryable as exc:
                if attempts > self.policy.max_retries:
                    raise PageError(f"{exc.reason} after {attempts} attempts", status=exc.status) from None
                wait = self.policy.backoff * 2 ** (attempts - 1)
                if exc.retry_after is not None:
                    wait = max(wait, min(exc.retry_after, MAX_RETRY_AFTER))
                log.info("retrying %s in %.2fs: %s", url, wait, exc.reason)
                await asyncio.sleep(wait)

    async def _follow(
        self, url: str, validators: Validators | None, *, html: bool, attempts: int, within: str | None
    ) -> Fetched:
        chain = [url]
        current = url
        while True:
            if not self.allowed(current):
                raise PageError(f"blocked by robots.txt: {current}")
            headers: dict[str, str] = {}
            etag, last_modified = validators(current) if validators else (None, None)
            if etag:
                headers["If-None-Match"] = etag
            if last_modified:
                headers["If-Modified-Since"] = last_modified
            async with self._slots:
                await self._pace(_origin(current))
                result = await self._request(current, headers, html=html)
            if isinstance(result, str):
                target = result
                if target in chain:
                    raise PageError("redirect loop: " + " -> ".join([*chain, target]), status=None)
                if within is not None and not target.startswith(within):
                    raise PageError(f"redirected outside the docs: {url} -> {target}")
                if len(chain) > self.policy.max_redirects:
                    raise PageError(f"more than {self.policy.max_redirects} redirects from {url}")
                chain.append(target)
                current = target
                continue
            status, body, content_type, response_headers = result
            return Fetched(
                url=url,
                final_url=current,
                status=status,
                body=body,
                content_type=content_type,
                etag=response_headers.get("etag"),
                last_modified=response_headers.get("last-modified"),
                attempts=attempts,
            )

    async def _request(
        self, url: str, headers: dict[str, str], *, html: bool
    ) -> str | tuple[int, bytes | None, str, httpx.Headers]:
        """One GET: a redirect target (str), or (status, body, content type, headers)."""
        self.requests_sent += 1
        try:
            async with self.client.stream("GET", url, headers=headers) as response:
                status = response.status_code
                if status in REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        raise PageError(f"HTTP {status} redirect without a Location header", status=status)
                    return urljoin(url, location)
                if status == 304:
                    return status, None, "", response.headers
                if status in RETRY_STATUSES:
                    raise _Retryable(f"HTTP {status}", status, _retry_after(response.headers))
                if status != 200:
                    raise PageError(f"HTTP {status}", status=status)
                content_type = response.headers.get("content-type", "")
                if html and content_type.split(";")[0].strip().lower() not in HTML_TYPES:
                    shown = content_type or "none"
                    raise PageError(f"not an HTML page (content-type: {shown})", status=status)
                body = await self._read_capped(response, url)
                return status, body, content_type, response.headers
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timeout ({type(exc).__name__})", None, None) from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error ({type(exc).__name__}: {exc})", None, None) from exc
        except httpx.HTTPError as exc:
            raise PageError(f"request failed: {type(exc).__name__}: {exc}") from exc

    async def _read_capped(self, response: httpx.Response, url: str) -> bytes:
        cap = self.policy.max_bytes
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise PageError(f"page too large: {int(declared)} bytes declared, limit {cap}", status=200)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise PageError(f"page too large: more than {cap} bytes", status=200)
            chunks.append(chunk)
        return b"".join(chunks)

    async def _pace(self, origin: str) -> None:
        """Space request starts on one host at least `delay` seconds apart."""
        if self.delay <= 0:
            return
        lock = self._host_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            now = time.monotonic()
            wait = self._host_next.get(origin, now) - now
            if wait > 0:
                await asyncio.sleep(wait)
            self._host_next[origin] = time.monotonic() + self.delay


class _Retryable(Exception):
    def __init__(self, reason: str, status: int | None, retry_after: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after


def _retry_after(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after", "")
    try:
        return float(value)
    except ValueError:
        return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
