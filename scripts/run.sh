#!/usr/bin/env bash
# The main job on the embedded defaults: set up, build the knowledge base (incremental), open the chat UI.
# Usage: scripts/run.sh [--host H] [--port P]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if .venv/bin/godot-rag ingest; then
  :
else
  status=$?
  if [ "$status" = "2" ]; then
    echo "run: no docs corpus found, so the knowledge base stays as it is (analysis still runs, with less evidence)." >&2
  else
    exit "$status"
  fi
fi
exec .venv/bin/godot-rag ui "$@"
