#!/usr/bin/env bash
# Quick start, part 2: install with the dev extras and run every check: format, lint,
# import contracts and the whole pytest suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/pytest "$@"
