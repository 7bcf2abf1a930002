#!/usr/bin/env bash
# Quick start, part 1: install, seed the database if it is empty, show how to get a key, serve.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
export FLASK_APP=app
.venv/bin/flask seed --if-empty
.venv/bin/flask keys create --tier free --name "local demo" --if-none
echo "Serving on http://127.0.0.1:${PORT:-5000} (Ctrl-C stops). Try:"
echo "  curl -H 'X-API-Key: <your key>' http://127.0.0.1:${PORT:-5000}/api/v1/strains?limit=2"
exec .venv/bin/flask serve --host 127.0.0.1 --port "${PORT:-5000}"
