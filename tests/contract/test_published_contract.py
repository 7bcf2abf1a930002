"""The published contract: OpenAPI paths equal the served routes; the GraphQL SDL is pinned."""

from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from graphql_schema import make_schema

SDL_SNAPSHOT = Path(__file__).with_name("schema.graphql")
NON_API_RULES = {
    "/",
    "/graphql",
    "/graphql/schema.graphql",
    "/docs/errors",
    "/api/v1/openapi.json",
    "/api/v1/docs",
    "/health",
    "/metrics",
    "/favicon.ico",
    "/api/v1/",  # the index again, with a slash (documented once, as /api/v1)
}
STATIC_PREFIXES = ("/static/", "/graphql/static/", "/api/v1/docs/static/")


def _served_routes(app: Flask) -> set[str]:
    routes = set()
    for rule in app.url_map.iter_rules():
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<string:{argument}>", "{" + argument + "}").replace(
                f"<{argument}>", "{" + argument + "}"
            )
        if not path.startswith(STATIC_PREFIXES):
            routes.add(path)
    return routes


def test_served_routes_equal_the_openapi_paths_plus_graphql_and_docs(
    app: Flask, client: FlaskClient
) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    documented = set(spec["paths"])
    # The 8 of the spec, plus /api/v1/usage, the doctor and deal details, the law list, where to
    # buy a strain, its lineage, the compounds, the change feed and the index (/api/v1; /api/v1/
    # answers the same, undocumented).
    assert len(documented) == 17
    assert _served_routes(app) == documented | NON_API_RULES


def test_every_operation_documents_its_errors_and_quota_headers(client: FlaskClient) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    for path, item in spec["paths"].items():
        operation = item["get"]
        if path == "/api/v1/usage":  # not charged: no quota headers; 429 only for bad keys
            assert set(operation["responses"]) == {"200", "400", "401", "405", "429", "500", "503"}
            assert set(operation["responses"]["200"]["headers"]) == {"X-Request-ID"}
            assert set(operation["responses"]["429"]["headers"]) == {"X-Request-ID", "Retry-After"}
            continue
        if path == "/api/v1":  # the index: no key, no quota
            assert operation["security"] == []
            assert set(operation["responses"]) == {"200", "400", "405", "500"}
            assert "X-RateLimit-Limit" not in operation["responses"]["405"]["headers"]
            assert set(operation["responses"]["200"]["headers"]) == {"X-Request-ID"}
            continue
        codes = set(operation["responses"])
        assert {"200", "304", "401", "405", "429", "500", "503"} <= codes, path
        assert ("404" in codes) == ("{" in path), path
        assert "400" in codes, path  # an unknown query parameter, at least
        assert set(operation["responses"]["200"]["headers"]) == {
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "X-Request-ID",
            "ETag",
            "Cache-Control",
        }
        assert "content" not in operation["responses"]["304"]
        assert "Retry-After" in operation["responses"]["429"]["headers"]
        error_ref = operation["responses"]["401"]["content"]["application/json"]["schema"]
        assert error_ref == {"$ref": "#/components/schemas/ErrorEnvelope"}
    schemes = spec["components"]["securitySchemes"]
    assert list(schemes) == ["ApiKeyHeader", "BearerKey", "ApiKeyQuery"]  # the precedence order
    assert schemes["ApiKeyHeader"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["ApiKeyQuery"] == {"type": "apiKey", "in": "query", "name": "api_key"}
    assert (schemes["BearerKey"]["type"], schemes["BearerKey"]["scheme"]) == ("http", "bearer")
    assert spec["security"] == [{"ApiKeyHeader": []}, {"BearerKey": []}, {"ApiKeyQuery": []}]


def test_list_parameters_publish_their_bounds(client: FlaskClient) -> None:
    spec = client.get("/api/v1/openapi.json").get_json()
    params = {p["name"]: p for p in spec["paths"]["/api/v1/doctors"]["get"]["parameters"]}
    assert params["limit"]["schema"]["minimum"] == 1
    assert params["limit"]["schema"]["default"] == 20
    assert "reduced to 50" in params["limit"]["description"]
    assert params["offset"]["schema"]["maximum"] == 1_000_000
    search = {p["name"]: p for p in spec["paths"]["/api/v1/search"]["get"]["parameters"]}
    assert search["q"]["required"] is True


def test_spec_and_docs_need_no_key_and_are_not_metered(client: FlaskClient) -> None:
    for path in ("/api/v1/openapi.json", "/api/v1/docs"):
        response = client.get(path)
        assert response.status_code == 200
        assert "X-RateLimit-Limit" not in response.headers
    page = client.get("/api/v1/docs").get_data(as_text=True)
    assert "/api/v1/docs/static/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()
    with client.get("/api/v1/docs/static/swagger-ui-bundle.js") as asset:
        assert asset.status_code == 200


def test_graphql_schema_matches_the_committed_sdl_snapshot() -> None:
    live = str(make_schema()).strip() + "\n"
    assert SDL_SNAPSHOT.read_text(encoding="utf-8") == live, (
        "The GraphQL schema changed. If that is deliberate, regenerate the snapshot with: "
        ".venv/bin/python -c 'from graphql_schema import make_schema; print(make_schema())' "
        "> tests/contract/schema.graphql"
    )


OPENAPI_SNAPSHOT = Path(__file__).with_name("openapi.json")


def test_the_openapi_document_matches_the_committed_snapshot_byte_for_byte(
    client: FlaskClient,
) -> None:
    served = client.get("/api/v1/openapi.json").get_data()
    assert OPENAPI_SNAPSHOT.read_bytes() == served, (
        "The OpenAPI document changed. If that is deliberate, save the served document "
        "(GET /api/v1/openapi.json) as tests/contract/openapi.json."
    )


def test_the_served_sdl_is_the_snapshot_without_a_key_or_a_charge(client: FlaskClient) -> None:
    """What codegen and typed clients read: GET /graphql/schema.graphql, like openapi.json."""
    origin = {"Origin": "https://app.example"}
    response = client.get("/graphql/schema.graphql", headers=origin)
    assert response.status_code == 200
    assert response.content_type == "text/plain; charset=utf-8"
    assert response.get_data(as_text=True) == SDL_SNAPSHOT.read_text(encoding="utf-8")
    assert "X-RateLimit-Limit" not in response.headers
    # Readable by a browser tool wherever openapi.json is.
    spec = client.get("/api/v1/openapi.json", headers=origin)
    assert response.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert spec.headers["Access-Control-Allow-Origin"] == "https://app.example"
    # A key, even a bad one, changes nothing: the SDL is public.
    keyed = client.get("/graphql/schema.graphql", headers={"X-API-Key": "cds_live_" + "C" * 32})
    assert keyed.status_code == 200
    assert keyed.get_data() == response.get_data()
    assert client.post("/graphql/schema.graphql").status_code == 405
