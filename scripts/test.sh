#!/usr/bin/env bash
# The whole test suite on real components (embedded Postgres, tree-sitter, the embedding model, headless chromium).
# Usage: scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" = "5" ]; then
  echo "test: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit "$status"
