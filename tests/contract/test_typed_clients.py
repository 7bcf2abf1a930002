"""The "Typed clients" section of docs/graphql.md works as written: graphql-codegen, with the
docs' codegen.ts, reads the SDL the app serves and types the docs' NearbyWithDeals query.

Needs graphql-codegen from .ci/node (``npm ci --prefix .ci/node``, as .ci/run does); skipped
with that reason when it is absent.
"""

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT, Running, flask_serve

CODEGEN = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "graphql-codegen"
DOCS = ROOT / "docs" / "graphql.md"
DOCS_SCHEMA_URL = "http://127.0.0.1:5000/graphql/schema.graphql"
CODEGEN_TIMEOUT_S = 120

pytestmark = pytest.mark.skipif(
    not CODEGEN.exists() or shutil.which("node") is None,
    reason="graphql-codegen is not installed: run `npm ci --prefix .ci/node` (needs Node.js)",
)


def _block(text: str, lang: str, containing: str) -> str:
    """The one fenced ``lang`` block of ``text`` that contains ``containing``."""
    blocks = re.findall(rf"^```{lang}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    [found] = [block for block in blocks if containing in block]
    return found


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, tiny_db_url: str) -> Iterator[Running]:
    tmp = tmp_path_factory.mktemp("typed-clients")
    env = {"DATABASE_URL": tiny_db_url, "RATELIMIT_STORAGE_URI": "memory://"}
    with flask_serve(tmp, env) as server:
        yield server


def _codegen(served: Running, workdir: Path, operations: dict[str, str]) -> str:
    """Run graphql-codegen in ``workdir`` with the docs' codegen.ts pointed at ``served``, over
    the documents ``operations`` (file name -> text); return what it printed."""
    config = _block(DOCS.read_text(encoding="utf-8"), "ts", "CodegenConfig")
    assert DOCS_SCHEMA_URL in config  # the docs point at the served SDL
    url = f"http://127.0.0.1:{served.port}/graphql/schema.graphql"
    (workdir / "codegen.ts").write_text(config.replace(DOCS_SCHEMA_URL, url), encoding="utf-8")
    (workdir / "src").mkdir()
    for name, text in operations.items():
        (workdir / "src" / name).write_text(text, encoding="utf-8")
    finished = subprocess.run(
        [str(CODEGEN), "--config", "codegen.ts"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=CODEGEN_TIMEOUT_S,
        env=os.environ | {"NODE_PATH": str(CODEGEN.parents[1])},
        check=False,
    )
    output = finished.stdout + finished.stderr
    return output if finished.returncode == 0 else f"exit {finished.returncode}\n{output}"


def test_codegen_with_the_docs_config_types_the_docs_query(served: Running, tmp_path: Path) -> None:
    query = _block(DOCS.read_text(encoding="utf-8"), "graphql", "query NearbyWithDeals")
    output = _codegen(served, tmp_path, {"nearby.graphql": query})
    assert not output.startswith("exit "), output
    generated = (tmp_path / "src" / "generated" / "graphql.ts").read_text(encoding="utf-8")
    # The schema's types, its scalars as the config maps them, and the operation's types.
    assert "export type Dispensary = Node & {" in generated
    assert "export type Node = {" in generated
    assert "ID: { input: string; output: string; }" in generated
    assert "DateTime: { input: string; output: string; }" in generated
    assert "nextChange?: Maybe<Scalars['DateTime']['output']>;" in generated
    assert "export type NearbyWithDealsQueryVariables" in generated
    operation = generated[generated.index("export type NearbyWithDealsQuery = {") :]
    for field in ("distance", "possessionLimitOz", "deliveryLegal", "discount", "price"):
        assert f"{field}" in operation, field


def test_codegen_refuses_a_query_the_served_schema_does_not_have(
    served: Running, tmp_path: Path
) -> None:
    """The check above can fail: a field the schema lacks stops codegen."""
    output = _codegen(served, tmp_path, {"bad.graphql": "query Bad { laws { noSuchField } }\n"})
    assert output.startswith("exit ")
    assert "noSuchField" in output
