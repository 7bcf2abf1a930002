#!/usr/bin/env bash
# Quick start, part 1: install (only when pyproject.toml changed), then `flask quickstart`.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
PORT="${PORT:-5000}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# A restart with pyproject.toml unchanged installs nothing and needs no package index.
. scripts/install-stamp.sh
wanted="$(pyproject_hash)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
  echo "$wanted" > "$STAMP"
fi
# One process seeds when empty, creates a key when there is none, prints a call to paste, serves.
exec .venv/bin/flask --app app quickstart --port "$PORT"
