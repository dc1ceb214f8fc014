"""Start a server script from this folder in its own process and wait for `READY <port>` (test helper)."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Iterator

HERE = Path(__file__).resolve().parent


@contextmanager
def running_server(script: str, *args: str, ready_timeout: float = 30.0) -> Iterator[str]:
    """Yield the server's base URL (`http://127.0.0.1:<port>/v1`); the process is stopped afterwards."""
    proc = subprocess.Popen([sys.executable, str(HERE / script), "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + ready_timeout
        line = ""
        while time.monotonic() < deadline:
            line = proc.stdout.readline() if proc.stdout else ""
            if line.startswith("READY"):
                break
            if proc.poll() is not None:
                raise RuntimeError(f"{script} exited: {proc.stderr.read() if proc.stderr else ''}")
        else:
            raise RuntimeError(f"{script} not ready after {ready_timeout}s")
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
