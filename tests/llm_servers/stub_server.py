"""A stub OpenAI-compatible chat server for tests and benches (stdlib only, threaded).

    python tests/llm_servers/stub_server.py --port 0 --mode good --delay 0.2

Prints `READY <port>` on stdout once listening. Modes:
  good          a valid judgment that cites only retrieved ids (a crude heuristic judge)
  broken        truncated, unparseable JSON
  bad_evidence  a well-formed judgment citing an id that was never retrieved
  slow          sleeps --slow-seconds (default 30) before a good answer: client timeouts
  godot3        (answers) suggests Godot 3 code: KinematicBody2D, `var velocity` redeclared, idle_frame
Answer requests (`answer_request:` from agent/answer/llm.py) get an answer object in the same modes:
good cites the first retrieved evidence, broken is cut-off JSON, bad_evidence cites an id that was
never retrieved. `stream: true` is answered as server-sent events, a few characters per event.
`--no-template-kwargs` refuses any request carrying `chat_template_kwargs` with HTTP 400, as strict
OpenAI-compatible servers do. `--delay` is added to every answer. GET /stats -> {"requests",
"in_flight", "max_in_flight", "template_kwargs"} (the last request's chat_template_kwargs);
POST /reset zeroes them. `serve()` is reused by smollm_server.py with another answer function.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = Callable[[dict], str]

_GODOT4_CUES = ("@export", "@onready", "await ", '&"', "super(", "Array[")


def parse_request(body: dict) -> dict:
    """The llm_judgment_request JSON inside the last user message."""
    text = [m for m in body.get("messages", []) if m.get("role") == "user"][-1]["content"]
    return json.loads(text[text.index("{"):])


def _code_lines(chunk: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in chunk.splitlines())


def good_answer(body: dict) -> dict:
    """A plausible judgment built from the request's own evidence."""
    req = parse_request(body)
    code = _code_lines(req["chunk_text"])
    evidence = req["retrieved_evidence"]
    for ev in evidence:
        src, dst = ev.get("source_api"), ev.get("target_api")
        if (ev["table"] == "api_mapping" and src and dst and src != dst and ev.get("status") != "rejected"
                and not ev.get("documented_in_godot4") and re.fullmatch(r"[A-Z]\w+", src)
                and re.search(rf"(?<![\w.]){re.escape(src)}\b", code)):
            return {"version_signal": "godot3", "label": "godot3_api_in_godot4", "migration_required": True,
                    "confidence": 0.8, "rationale": f"{src} is Godot 3 API, renamed to {dst} [{ev['id']}].",
                    "evidence_ids": [ev["id"]],
                    "suggested_changes": [{"old": src, "new": dst, "change_type": ev.get("change_type", "rename"),
                                           "evidence_id": ev["id"], "docs_url": None, "note": ""}],
                    "suggested_code": None}
    docs = [ev["id"] for ev in evidence if ev["table"] == "docs_chunks"][:1]
    if docs and any(cue in code for cue in _GODOT4_CUES):
        return {"version_signal": "godot4", "label": "godot4_valid_api", "migration_required": False,
                "confidence": 0.8, "rationale": f"Godot 4 syntax; see [{docs[0]}].", "evidence_ids": docs,
                "suggested_changes": [], "suggested_code": None}
    return {"version_signal": "neutral", "label": "ambiguous_version_signal", "migration_required": False,
            "confidence": 0.5, "rationale": "No version-specific signal.", "evidence_ids": [],
            "suggested_changes": [], "suggested_code": None}


def is_answer_request(body: dict) -> bool:
    """An answer organiser request (agent/answer/llm.py) rather than a chunk judgment."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return bool(users) and users[-1]["content"].startswith("answer_request:")


GODOT3_CODE = "extends KinematicBody2D\n\nvar velocity = Vector2.ZERO\n\nfunc _ready():\n\tawait get_tree().idle_frame\n"


def answer_reply(body: dict, mode: str) -> str:
    """An answer object for the answer organiser, in the given mode."""
    if mode == "broken":
        return '{"markdown": "This code is Godot 3 [1] and nee'
    req = parse_request(body)
    evidence = req["evidence"][:2]
    cites = [{"number": e["number"], "evidence_id": e["evidence_id"]} for e in evidence]
    marks = " ".join(f"[{e['number']}]" for e in evidence)
    verdict = (req.get("verdict") or {}).get("label")
    text = f"Verdict: {verdict}. The judged chunks and their docs explain it {marks}.".replace(" .", ".")
    code = req.get("base_suggested_code")
    if mode == "bad_evidence":
        cites = [{"number": 1, "evidence_id": "godot-stable:never/retrieved.html#nowhere:0001"}]
        text = "See the docs [1]."
    if mode == "godot3":
        code = GODOT3_CODE
    return json.dumps({"markdown": text, "citations": cites, "suggested_code": code}, ensure_ascii=False)


def make_answer(mode: str, slow_seconds: float) -> Answer:
    def answer(body: dict) -> str:
        if mode == "slow":
            time.sleep(slow_seconds)
        if is_answer_request(body):
            return answer_reply(body, mode)
        if mode == "broken":
            return '{"version_signal": "godot4", "label": "godot4_valid_api", "migration_required": fal'
        judgment = good_answer(body)
        if mode == "bad_evidence":
            judgment.update(version_signal="godot4", label="godot4_valid_api", migration_required=False,
                            evidence_ids=["godot-stable:never/retrieved.html#nowhere:0001"])
        return json.dumps(judgment)
    return answer


class _Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = self.in_flight = self.max_in_flight = 0
        self.template_kwargs: dict | None = None

    def as_dict(self) -> dict:
        return {"requests": self.requests, "in_flight": self.in_flight, "max_in_flight": self.max_in_flight,
                "template_kwargs": self.template_kwargs}


def serve(port: int, answer: Answer, *, delay: float = 0.0, model: str = "stub",
          template_kwargs: bool = True) -> None:
    """Serve /v1/chat/completions with `answer(body) -> content` until killed."""
    stats = _Stats()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet: tests read stdout for READY only
            pass

        def _send(self, code: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def _stream(self, content: str, name: str) -> None:
            """Server-sent events: the content a few characters at a time, then [DONE]."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            pieces = [content[i : i + 7] for i in range(0, len(content), 7)] or [""]
            try:
                for k, piece in enumerate(pieces):
                    event = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": name, "choices": [{"index": 0, "delta": {"content": piece},
                                                         "finish_reason": "stop" if k == len(pieces) - 1 else None}]}
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self) -> None:
            if self.path.endswith("/stats"):
                with stats.lock:
                    self._send(200, stats.as_dict())
            elif self.path.endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": model, "object": "model"}]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if self.path.endswith("/reset"):
                with stats.lock:
                    stats.requests = stats.in_flight = stats.max_in_flight = 0
                self._send(200, {"ok": True})
                return
            if not self.path.endswith("/chat/completions"):
                self._send(404, {"error": "not found"})
                return
            if "chat_template_kwargs" in body and not template_kwargs:
                self._send(400, {"error": {"message": "Unrecognized request argument supplied: chat_template_kwargs",
                                           "type": "invalid_request_error"}})
                return
            with stats.lock:
                stats.template_kwargs = body.get("chat_template_kwargs")
            with stats.lock:
                stats.requests += 1
                stats.in_flight += 1
                stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            try:
                if delay:
                    time.sleep(delay)
                content = answer(body)
            except Exception as exc:  # noqa: BLE001 - a test server reports any failure as HTTP 500
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                return
            finally:
                with stats.lock:
                    stats.in_flight -= 1
            if body.get("stream"):
                self._stream(content, body.get("model", model))
                return
            self._send(200, {
                "id": f"chatcmpl-{stats.requests}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", model),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            })

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (printed as READY <port>)")
    p.add_argument("--mode", choices=["good", "broken", "bad_evidence", "slow", "godot3"], default="good")
    p.add_argument("--delay", type=float, default=0.0, help="seconds added to every answer")
    p.add_argument("--slow-seconds", type=float, default=30.0, help="extra sleep in slow mode")
    p.add_argument("--no-template-kwargs", action="store_true", help="refuse chat_template_kwargs with HTTP 400")
    args = p.parse_args(argv)
    serve(args.port, make_answer(args.mode, args.slow_seconds), delay=args.delay,
          template_kwargs=not args.no_template_kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
