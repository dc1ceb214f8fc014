#!/usr/bin/env bash
# Set up a fresh machine: venv, the CPU torch wheel first (plain `torch` would pull GBs of CUDA), then the project.
# Usage: scripts/setup.sh [--test]   (--test also installs test extras and Debian's chromium for browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/pip install -q "torch==2.13.0"
if [ "${1:-}" = "--test" ]; then
  .venv/bin/pip install -q -e ".[test]"
  if ! dpkg -s chromium chromium-driver fonts-wqy-microhei >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      echo "setup: installing Debian chromium (and CJK fonts for screenshots) for the browser tests" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-wqy-microhei) >/dev/null
    else
      echo "setup: chromium is missing and we are not root; browser tests will be skipped" >&2
    fi
  fi
else
  .venv/bin/pip install -q -e .
fi
# The MCP server's SDK (agent/mcp_server) in a step of its own: chainlit 2.x declares mcp<2 for a client
# feature of its own that the web chat does not use, so one resolver run cannot take both (pyproject.toml)
.venv/bin/pip install -q "mcp>=2.3,<3" 2>&1 | grep -v "chainlit .* requires mcp\|dependency resolver does not" >&2 || true
.venv/bin/python -c "import mcp.server.mcpserver" || { echo "setup: the mcp SDK did not install" >&2; exit 1; }
# Build the ONNX copy of the embedding model now (offline, from the packaged weights), not on first use;
# it prints why it builds nothing where the precision is bfloat16
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 .venv/bin/python -m agent.embeddings_onnx >/dev/null
