#!/usr/bin/env bash
# Quick start, part 2: install with the dev extras and run every check: format, lint, import
# contracts, types (mypy), the whole pytest suite (SQLite), then the REST, GraphQL, contract, web
# and accel suites with SPEED_TRICKS=off, and again on PostgreSQL when one is reachable. Extra
# arguments go to every pytest run.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
# serve.sh installs only when pyproject.toml changed; this install covers what it needs.
. scripts/install-stamp.sh
pyproject_hash > "$STAMP"
.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/lint-imports
.venv/bin/mypy
.venv/bin/pytest "$@"
echo "== The REST, GraphQL, contract, web and accel suites again with every speed trick off (stock path) =="
SPEED_TRICKS=off .venv/bin/pytest tests/rest tests/graphql tests/contract tests/web tests/accel "$@"

# A PostgreSQL role that may create databases; the suite works in a scratch database it drops.
PG_URL="${TEST_POSTGRES_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test}"
if .venv/bin/python - "$PG_URL" <<'PY'
import sys
import psycopg
from sqlalchemy import make_url

url = make_url(sys.argv[1])
try:
    psycopg.connect(host=url.host, port=url.port or 5432, user=url.username,
                    password=url.password, dbname=url.database, connect_timeout=3).close()
except psycopg.Error:
    sys.exit(1)
PY
then
  echo "== The REST, GraphQL, contract, accel, web, CLI, sync, fuzz and service list suites again, on PostgreSQL =="
  TEST_DATABASE_URL="$PG_URL" .venv/bin/pytest tests/rest tests/graphql tests/contract \
    tests/accel tests/web tests/cli tests/sync tests/fuzz tests/service/test_keys.py \
    tests/service/test_changes.py \
    tests/service/test_search_index.py tests/service/test_strains.py \
    tests/service/test_dispensaries.py tests/service/test_deals.py tests/service/test_doctors.py \
    tests/service/test_search.py tests/service/test_laws.py tests/service/test_paging.py \
    tests/service/test_open_in_sql.py tests/service/test_stockist_lists.py \
    tests/service/test_strain_chemistry.py tests/service/test_lineage.py \
    tests/service/test_shelf.py "$@"
else
  echo "PostgreSQL is not reachable at $PG_URL: skipped the PostgreSQL pass"
fi
