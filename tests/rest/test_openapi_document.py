"""The OpenAPI document: typed parameters, operation ids, servers, tags, its Markdown, every
status an operation can answer, and for each status exactly the headers its real responses
carry."""

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import exc as sa_exc
from werkzeug.test import TestResponse

from rest.args import (
    DealArgs,
    DispensaryArgs,
    DoctorArgs,
    LawArgs,
    LineageArgs,
    SearchArgs,
    StockistArgs,
    StrainArgs,
)
from rest.blueprint import is_number
from rest.fields import StrictBoolean, StrictInteger, StrictNumber
from rest.openapi import OPENAPI_PATH, TAGS
from rest.parameters import ACCEPTS
from service import keys
from service.bounds import CHANGES, DOCTORS_MAX_LIMIT, MAX_LIMIT
from service.changes import make_cursor
from service.compounds import RATIOS
from service.geo import JURISDICTIONS
from service.terms import TERMS_OF_USE
from service.vocab import DEAL_CATEGORIES, DISPENSARY_TYPES, SEARCH_TYPES, STRAIN_TYPES
from web.db import SESSIONS_EXTENSION
from web.routes import number_params

OPERATION_IDS = {
    "/api/v1": "getIndex",
    "/api/v1/strains": "listStrains",
    "/api/v1/strains/{slug}": "getStrain",
    "/api/v1/strains/{slug}/dispensaries": "listStrainDispensaries",
    "/api/v1/compounds": "listCompounds",
    "/api/v1/strains/{slug}/lineage": "getStrainLineage",
    "/api/v1/dispensaries": "listDispensaries",
    "/api/v1/dispensaries/{dispensary_id}": "getDispensary",
    "/api/v1/deals": "listDeals",
    "/api/v1/deals/{deal_id}": "getDeal",
    "/api/v1/doctors": "listDoctors",
    "/api/v1/doctors/{doctor_id}": "getDoctor",
    "/api/v1/laws": "listLaws",
    "/api/v1/laws/{state}": "getLaw",
    "/api/v1/search": "search",
    "/api/v1/changes": "listChanges",
    "/api/v1/usage": "getUsage",
}
LISTS = {"200", "304", "400", "401", "405", "429", "500", "503"}
# Headers whose presence is compared with the declarations (CORS, nosniff and the like are
# on every response and not declared per operation).
WATCHED = (
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "X-Request-ID",
    "ETag",
    "Cache-Control",
    "Retry-After",
    "Allow",
)


def _document(app: Flask) -> dict[str, Any]:
    return app.test_client().get(OPENAPI_PATH).get_json()


@pytest.fixture
def document(client) -> dict[str, Any]:
    return client.get(OPENAPI_PATH).get_json()


def _parameters(document: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in document["paths"][path]["get"].get("parameters", [])}


# --- parameters -------------------------------------------------------------------------------


def test_numbers_booleans_and_vocabularies_are_published_typed(document) -> None:
    strains = _parameters(document, "/api/v1/strains")
    assert strains["thc_min"]["schema"] == {"type": "number", "minimum": 0, "maximum": 100}
    assert strains["cbd_max"]["schema"] == {"type": "number", "minimum": 0, "maximum": 100}
    # Filters taking several values (comma-separated: style form, explode false) are arrays.
    assert strains["type"]["schema"] == {
        "type": "array",
        "items": {"type": "string", "enum": list(STRAIN_TYPES)},
        "minItems": 1,
        "maxItems": 10,
    }
    assert (strains["type"]["style"], strains["type"]["explode"]) == ("form", False)
    dispensaries = _parameters(document, "/api/v1/dispensaries")
    assert dispensaries["delivery"]["schema"] == {"type": "boolean"}
    assert dispensaries["radius"]["schema"] == {
        "type": "number",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 500,
    }
    assert dispensaries["type"]["schema"]["items"]["enum"] == list(DISPENSARY_TYPES)
    assert dispensaries["state"]["schema"]["items"]["enum"] == sorted(JURISDICTIONS)
    assert dispensaries["lat"]["schema"] == {"type": "number", "minimum": -90, "maximum": 90}
    assert dispensaries["sort"]["schema"]["enum"] == [
        *("name", "distance", "rating", "-rating"),
        *("updated_at", "-updated_at"),
    ]
    assert strains["sort"]["schema"]["enum"] == ["name", "updated_at", "-updated_at"]
    assert strains["updated_since"]["schema"]["format"] == "date-time"
    assert _parameters(document, "/api/v1/deals")["category"]["schema"]["items"]["enum"] == list(
        DEAL_CATEGORIES
    )
    assert _parameters(document, "/api/v1/doctors")["telehealth"]["schema"] == {"type": "boolean"}
    assert _parameters(document, "/api/v1/laws")["medical"]["schema"] == {"type": "boolean"}
    assert _parameters(document, "/api/v1/search")["type"]["schema"]["enum"] == list(SEARCH_TYPES)


@pytest.mark.parametrize(
    ("path", "arguments"),
    [
        ("/api/v1/strains", StrainArgs),
        ("/api/v1/dispensaries", DispensaryArgs),
        ("/api/v1/deals", DealArgs),
        ("/api/v1/doctors", DoctorArgs),
        ("/api/v1/laws", LawArgs),
        ("/api/v1/search", SearchArgs),
    ],
)
def test_no_typed_or_closed_parameter_is_published_as_a_patterned_string(
    document, path: str, arguments: type
) -> None:
    published = _parameters(document, path)
    assert set(published) == {f.data_key or n for n, f in arguments().fields.items()}
    for name, field in arguments().fields.items():
        schema = published[field.data_key or name]["schema"]
        expected = {StrictNumber: "number", StrictInteger: "integer", StrictBoolean: "boolean"}
        if type(field) in expected:
            assert schema["type"] == expected[type(field)], name
            assert "pattern" not in schema, name
        if "enum" in schema:
            assert "pattern" not in schema, name
            assert "any case" in published[name]["description"], name
        # The server's own grammar stays out of the document.
        assert ACCEPTS not in schema, name
        assert field.metadata.get(ACCEPTS) or schema.get("pattern"), name


def test_limit_publishes_no_maximum_and_states_the_one_it_reduces_to(document) -> None:
    # A larger limit is read (reduced), so the schema must not call it invalid.
    for path, item in document["paths"].items():
        params = _parameters(document, path)
        if "limit" in params:
            maximum = {"/api/v1/doctors": DOCTORS_MAX_LIMIT, "/api/v1/changes": CHANGES.maximum}
            maximum = maximum.get(path, MAX_LIMIT)
            assert path in OPERATION_IDS, path
            assert "maximum" not in params["limit"]["schema"], path
            assert params["limit"]["schema"]["minimum"] == 1, path
            assert f"reduced to {maximum}" in params["limit"]["description"], path
        assert item["get"]["operationId"] == OPERATION_IDS[path]


def test_cross_parameter_rules_are_written_in_the_operation_description(document) -> None:
    strains = " ".join(document["paths"]["/api/v1/strains"]["get"]["description"].split())
    assert "thc_min must not be greater than thc_max" in strains
    assert "cbd_min must not be greater than cbd_max" in strains
    dispensaries = document["paths"]["/api/v1/dispensaries"]["get"]["description"]
    assert "radius needs zip" in dispensaries


# --- document-wide ----------------------------------------------------------------------------


def test_every_operation_has_its_camel_case_operation_id(document) -> None:
    published = {path: item["get"]["operationId"] for path, item in document["paths"].items()}
    assert published == OPERATION_IDS
    assert len(set(published.values())) == len(published)


def test_the_server_is_relative_unless_a_public_base_url_is_set(
    document, make_app: Callable[..., Flask]
) -> None:
    assert document["servers"] == [
        {"url": "/", "description": "This service, at the address this document was fetched from."}
    ]
    assert document["info"]["license"] == {"name": "Proprietary", "url": "/"}
    public = _document(make_app(PUBLIC_BASE_URL="https://api.example.com"))
    assert public["servers"] == [{"url": "https://api.example.com", "description": "This service."}]
    assert public["info"]["license"]["url"] == "https://api.example.com/"
    assert "[/docs/errors](https://api.example.com/docs/errors)" in public["info"]["description"]


def test_each_resource_is_one_tag_and_every_operation_has_one(document) -> None:
    assert [tag["name"] for tag in document["tags"]] == [
        "index",
        "strains",
        "compounds",
        "dispensaries",
        "deals",
        "doctors",
        "laws",
        "search",
        "changes",
        "usage",
    ]
    assert [(tag["name"], tag["description"]) for tag in document["tags"]] == list(TAGS)
    tagged = {path: item["get"]["tags"] for path, item in document["paths"].items()}
    # A path's first segment names its resource; where to buy a strain is under strains; the
    # index, /api/v1 itself, is "index".
    assert tagged == {path: [[*path.split("/"), "index"][3]] for path in OPERATION_IDS}


def _descriptions(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _descriptions(item)


def test_no_description_has_markup_outside_a_code_span(document) -> None:
    """Swagger UI renders descriptions as Markdown: a bare ``<key>`` would be taken for a tag."""
    for text in _descriptions(document):
        outside = re.sub(r"`[^`]*`", "", text)
        assert "<" not in outside, text
    bearer = document["components"]["securitySchemes"]["BearerKey"]["description"]
    assert "(`Authorization: Bearer <key>`)" in bearer


def test_the_description_links_the_error_reference_and_states_the_terms(document) -> None:
    description = document["info"]["description"]
    assert "Error reference: [/docs/errors](/docs/errors)." in description
    assert "[how to get one](/)" in description
    assert description.endswith("**Terms of use**\n" + "".join(f"\n- {t}" for t in TERMS_OF_USE))
    assert "PUBLIC_BASE_URL" not in json.dumps(document)  # an operator's setting, not a client's


def test_swagger_ui_keeps_the_authorised_key_over_a_reload(client) -> None:
    page = client.get("/api/v1/docs").get_data(as_text=True)
    assert 'var override_config = {"persistAuthorization": true};' in page


def _references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _references(value)
    elif isinstance(node, list):
        for item in node:
            yield from _references(item)


def test_every_component_is_used(document) -> None:
    used = set(_references(document))
    declared = {
        f"#/components/{kind}/{name}"
        for kind, entries in document["components"].items()
        if kind != "securitySchemes"
        for name in entries
    }
    assert declared - used == set()
    assert "PaginationMetadata" not in document["components"]["schemas"]


def test_response_schemas_are_open_to_new_fields(document) -> None:
    text = json.dumps(document["components"]["schemas"])
    assert '"additionalProperties": false' not in text
    # Still exact about what is always there.
    strain = document["components"]["schemas"]["StrainItem"]
    assert (
        set(strain["required"])
        == set(strain["properties"])
        == {
            "slug",
            "name",
            "type",
            "thc",
            "cbd",
            "effects",
            "flavors",
            "dominant_terpene",
            "ratio",
            "updated_at",
        }
    )
    assert strain["properties"]["ratio"]["enum"] == [*RATIOS, None]
    assert strain["properties"]["ratio"]["nullable"] is True
    assert strain["properties"]["updated_at"]["format"] == "date-time"


def test_every_operation_lists_every_status_it_can_answer(document) -> None:
    for path, item in document["paths"].items():
        statuses = set(item["get"]["responses"])
        if path == "/api/v1/usage":  # never conditional: no 304
            assert statuses == {"200", "400", "401", "405", "429", "500", "503"}
        elif path == "/api/v1":  # the index: no key, no quota, no database
            assert statuses == {"200", "400", "405", "500"}
        elif path == "/api/v1/changes":  # an expired cursor: 410
            assert statuses == LISTS | {"410"}, path
        elif "{" in path:
            assert statuses == LISTS | {"404"}, path
        else:
            assert statuses == LISTS, path


def test_a_rest_get_takes_no_body_so_no_operation_documents_413(api) -> None:
    response = api.client.get(
        "/api/v1/laws/CA", data=b"x" * 100_000, headers={"X-API-Key": api.key}
    )
    assert response.status_code == 200


# --- declared headers against real responses ---------------------------------------------------


def _declared(document: dict[str, Any], path: str, status: int) -> dict[str, Any]:
    return document["paths"][path]["get"]["responses"][str(status)].get("headers", {})


def assert_headers_as_declared(
    response: TestResponse, declared: dict[str, Any], *, every_one: bool = True
) -> None:
    """The declared headers are present (``every_one``, else only the required ones) and no
    watched header is sent undeclared."""
    for name, header in declared.items():
        if every_one or header["required"]:
            assert name in response.headers, (response.status_code, name)
    for name in WATCHED:
        if name in response.headers:
            assert name in declared, (response.status_code, name, "sent, not declared")


def _grant(app: Flask, **options: Any) -> str:
    with app.extensions[SESSIONS_EXTENSION]() as db:
        plaintext = keys.create_key(db, tier="enterprise", name="headers", **options).plaintext
        db.commit()
    return plaintext


def _url(app: Flask, key: str, path: str, *, known: bool = True) -> str:
    """``path`` with its parameter filled with a real id (or, unless ``known``, an unknown one)."""
    if "{" not in path:
        return path + ("?q=kush" if path.endswith("/search") else "")
    base, rest = path.split("/{")
    parameter, tail = rest.split("}")  # tail: what follows the parameter (/dispensaries)
    if not known:
        return f"{base}/ZZ{tail}" if parameter == "state" else f"{base}/nope{tail}"
    if parameter == "state":
        return f"{base}/CA{tail}"
    items = app.test_client().get(base, headers={"X-API-Key": key}).get_json()["data"]
    return f"{base}/{items[0]['slug' if parameter == 'slug' else 'id']}{tail}"


def _with(url: str, pair: str) -> str:
    return url + ("&" if "?" in url else "?") + pair


def _failing(app: Flask, path: str, error: Exception) -> None:
    """Make the operation's view raise ``error`` after the key is checked and charged."""
    endpoint = app.url_map.bind("localhost").match(path, method="GET")[0]
    view = app.view_functions[endpoint]

    @functools.wraps(view)  # keeps its route policy and query names
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise error

    app.view_functions[endpoint] = failing


@pytest.mark.parametrize("path", OPERATION_IDS)
def test_each_declared_status_sends_exactly_its_declared_headers(
    make_app: Callable[..., Flask], path: str
) -> None:
    app = make_app()
    document = _document(app)
    client = app.test_client()
    key = _grant(app, hourly_limit=10_000)
    url = _url(app, key, path)
    headers = {"X-API-Key": key}
    real: dict[int, TestResponse] = {}
    real[200] = client.get(url, headers=headers)
    if "304" in document["paths"][path]["get"]["responses"]:
        real[304] = client.get(url, headers={**headers, "If-None-Match": real[200].headers["ETag"]})
    real[400] = client.get(_with(url, "bogus=1"), headers=headers)
    real[405] = client.post(url, headers=headers)
    if path == "/api/v1":  # the index: no key, no quota, no database
        _failing(app, url, RuntimeError("boom"))
        real[500] = client.get(_with(url, "_=500"), headers=headers)
        _assert_as_declared(document, path, real)
        return
    real[401] = client.get(url)
    if "{" in path:
        real[404] = client.get(_url(app, key, path, known=False), headers=headers)
    if path == "/api/v1/changes":  # a cursor of another log has expired
        real[410] = client.get(_with(url, f"since={make_cursor('feed', 0)}"), headers=headers)
    if path == "/api/v1/usage":  # not charged: only the failed-key throttle answers 429
        for attempt in range(61):
            real[429] = client.get(url, headers={"X-API-Key": f"cds_live_bad{attempt}"})
    else:
        spent = _grant(app, hourly_limit=1)
        client.get(url, headers={"X-API-Key": spent})
        real[429] = client.get(url, headers={"X-API-Key": spent})
    # A fresh cache-buster each: a request answered before may be replayed without its view.
    _failing(app, url.split("?")[0], RuntimeError("boom"))
    real[500] = client.get(_with(url, "_=500"), headers=headers)
    _failing(app, url.split("?")[0], sa_exc.OperationalError("SELECT 1", {}, Exception("down")))
    real[503] = client.get(_with(url, "_=503"), headers=headers)
    _assert_as_declared(document, path, real)


def _assert_as_declared(document: dict[str, Any], path: str, real: dict[int, TestResponse]) -> None:
    declared = document["paths"][path]["get"]["responses"]
    assert set(real) == {int(status) for status in declared}
    for status, response in real.items():
        assert response.status_code == status, (status, response.get_data(as_text=True))
        assert_headers_as_declared(response, _declared(document, path, status))


@pytest.mark.parametrize("path", ["/api/v1/strains", "/api/v1/laws/{state}", "/api/v1/usage"])
def test_the_other_ways_to_a_429_or_503_send_only_declared_headers(
    make_app: Callable[..., Flask], tmp_path, path: str
) -> None:
    app = make_app()
    document = _document(app)
    url = _url(app, _grant(app, hourly_limit=10), path)
    client = app.test_client()
    for attempt in range(61):  # too many invalid keys from this address: no quota headers
        throttled = client.get(url, headers={"X-API-Key": f"cds_live_bad{attempt}"})
    assert throttled.status_code == 429
    assert "X-RateLimit-Limit" not in throttled.headers
    assert_headers_as_declared(throttled, _declared(document, path, 429), every_one=False)
    # The database is down before the key can be checked: nothing is charged.
    down = make_app(DATABASE_URL=f"sqlite:///{tmp_path / 'missing' / 'cannabis.db'}")
    unavailable = down.test_client().get(url, headers={"X-API-Key": keys.generate_plaintext()})
    assert unavailable.status_code == 503
    assert "X-RateLimit-Limit" not in unavailable.headers
    assert_headers_as_declared(unavailable, _declared(document, path, 503), every_one=False)


def test_a_parameter_etags_read_as_a_number_is_a_number_wherever_it_is_taken(app) -> None:
    # web.routes.number_params is app-wide: "q=1e1" must never be read as "q=10".
    names = number_params(app)
    assert names == {
        "limit",
        "offset",
        "thc_min",
        "thc_max",
        "cbd_min",
        "cbd_max",
        "cbg_min",
        "cbn_min",
        "thcv_min",
        "cbc_min",
        "lat",
        "lng",
        "radius",
        "bbox",
        "depth",
        "total_thc_min",
    }
    every = (
        StrainArgs,
        DispensaryArgs,
        StockistArgs,
        DealArgs,
        DoctorArgs,
        SearchArgs,
        LineageArgs,
    )
    for arguments in every:
        for name, field in arguments().fields.items():
            assert ((field.data_key or name) in names) == is_number(field), (arguments, name)
