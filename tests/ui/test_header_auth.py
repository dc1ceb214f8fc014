"""Header auth behind a trusted proxy, on the real server (no browser needed)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.browser


def _post(url: str, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, method="POST", headers=headers, data=b"")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code


def test_proxy_header_logs_in_and_its_absence_is_refused(make_server):
    server = make_server(GODOT_RAG_UI_HEADER_AUTH="X-Forwarded-User")
    server.start()
    try:
        assert _post(server.url + "/auth/header", {"X-Forwarded-User": "carol"}) == 200
        assert _post(server.url + "/auth/header", {}) == 401
        assert _post(server.url + "/auth/header", {"X-Forwarded-User": "not a name!"}) == 401
    finally:
        server.stop()
