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
# The chat refuses anonymous use unless configured; on a fresh machine give the owner a local login.
if [ -z "${GODOT_RAG_UI_USERS:-}${GODOT_RAG_UI_HEADER_AUTH:-}${GODOT_RAG_UI_ALLOW_ANONYMOUS:-}" ]; then
  home="${GODOT_RAG_HOME:-$PWD/.godot_rag_home}"
  mkdir -p "$home"
  if [ ! -s "$home/ui_admin_password" ]; then
    (umask 077 && .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(12))" > "$home/ui_admin_password")
  fi
  export GODOT_RAG_UI_USERS="admin:$(cat "$home/ui_admin_password")"
  echo "run: log in as 'admin' with the password in $home/ui_admin_password (set GODOT_RAG_UI_USERS to choose your own)" >&2
fi
exec .venv/bin/godot-rag ui "$@"
