#!/usr/bin/env bash
# The main job on the embedded defaults: set up, build the knowledge base (incremental), open the chat UI.
# The knowledge base comes in two stages: everything but the vectors first (the API index, the mappings and
# keyword search: seconds to a few minutes), then the vectors in the background while the chat is open.
# Usage: scripts/run.sh [--host H] [--port P]
set -euo pipefail
cd "$(dirname "$0")/.."
home="${GODOT_RAG_HOME:-$PWD/.godot_rag_home}"
mkdir -p "$home"
embed_log="$home/embedding.log"
cat >&2 <<EOF
run: 1) set up the venv and the embedding model
run: 2) build the knowledge base without vectors (API index, mappings, keyword search)
run: 3) measure how fast this machine embeds, then embed the docs in the background (log: $embed_log)
run: 4) open the chat; until the embedding is done its answers say that evidence is still partial
EOF
scripts/setup.sh
kb=yes
if .venv/bin/godot-rag ingest --no-vectors --no-progress; then
  :
else
  status=$?
  if [ "$status" = "2" ]; then
    kb=no
    echo "run: no docs corpus found, so the knowledge base stays as it is (analysis still runs, with less evidence)." >&2
  else
    exit "$status"
  fi
fi
fill=""
if [ "$kb" = "yes" ]; then
  # a small sample embedded now (and kept) gives this machine's rate, so the wait is measured, not guessed
  .venv/bin/godot-rag ingest --vectors-only --estimate | sed 's/^/run: /' >&2
  .venv/bin/godot-rag ingest --vectors-only >>"$embed_log" 2>&1 &
  fill=$!
fi
# The chat refuses anonymous use unless configured; on a fresh machine give the owner a local login.
if [ -z "${GODOT_RAG_UI_USERS:-}${GODOT_RAG_UI_HEADER_AUTH:-}${GODOT_RAG_UI_ALLOW_ANONYMOUS:-}" ]; then
  if [ ! -s "$home/ui_admin_password" ]; then
    (umask 077 && .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(12))" > "$home/ui_admin_password")
  fi
  export GODOT_RAG_UI_USERS="admin:$(cat "$home/ui_admin_password")"
  echo "run: log in as 'admin' with the password in $home/ui_admin_password (set GODOT_RAG_UI_USERS to choose your own)" >&2
fi
# The UI and the embedding both hold the embedded Postgres; the last one to stop stops it. A stop of this
# script (Ctrl-C, SIGTERM) is passed to both; a later run.sh resumes the embedding where it stopped.
.venv/bin/godot-rag ui "$@" &
ui=$!
stop() { kill -TERM "$ui" ${fill:+"$fill"} 2>/dev/null || true; }
trap stop INT TERM
status=0
wait "$ui" || status=$?
if kill -0 "$ui" 2>/dev/null; then  # a trap interrupted the wait: wait for the UI to finish stopping
  wait "$ui" || status=$?
fi
if [ -n "$fill" ]; then
  kill -TERM "$fill" 2>/dev/null || true
  wait "$fill" 2>/dev/null || true
fi
exit "$status"
