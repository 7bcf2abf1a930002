"""rest.parser.ParsedQueries: with speed tricks on, a query string is parsed once per arguments
schema and data version; refusals are parsed (and refused) every time; off, nothing is kept."""

from collections.abc import Callable

import pytest
from flask import Flask
from marshmallow import Schema

from rest.args import StrainArgs
from rest.parser import PARSED_QUERIES_EXTENSION, ParsedQueries
from web.state import web_state

LIST = "/api/v1/strains?type=hybrid&thc_min=15&limit=5"


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the argument schemas loaded from now on."""
    loaded: list[str] = []
    original = Schema.load

    def load(self: Schema, *args, **kwargs):
        loaded.append(type(self).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Schema, "load", load)
    return loaded


def test_a_repeated_query_string_is_parsed_once_and_answers_the_same(
    make_app: Callable[..., Flask], api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(SPEED_TRICKS=True, PAGE_CACHE_MB=0)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    loaded = _loads(monkeypatch)
    first = client.get(LIST, headers=headers)
    again = client.get(LIST, headers=headers)
    other = client.get(LIST + "&offset=1", headers=headers)
    assert (first.status_code, again.status_code, other.status_code) == (200, 200, 200)
    assert again.get_data() == first.get_data()
    assert loaded.count("StrainArgs") == 2  # the first and the other query string


def test_a_new_data_version_parses_again(
    make_app: Callable[..., Flask], api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(SPEED_TRICKS=True, PAGE_CACHE_MB=0)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    client.get(LIST, headers=headers)
    versions = iter(range(10**6, 10**6 + 10))
    monkeypatch.setattr(web_state(app).version, "get", lambda: next(versions))
    loaded = _loads(monkeypatch)
    client.get(LIST, headers=headers)
    client.get(LIST, headers=headers)
    assert loaded.count("StrainArgs") == 2


def test_refusals_are_not_kept_and_stay_refusals(
    make_app: Callable[..., Flask], api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(SPEED_TRICKS=True)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    loaded = _loads(monkeypatch)
    for _ in range(2):
        refused = client.get("/api/v1/strains?thc_min=30&thc_max=10", headers=headers)
        assert refused.status_code == 400
        assert refused.get_json()["error"]["param"] == "thc_min"
    assert loaded.count("StrainArgs") == 2


def test_without_speed_tricks_every_request_is_parsed(
    make_app: Callable[..., Flask], api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(SPEED_TRICKS=False)
    assert PARSED_QUERIES_EXTENSION not in app.extensions
    client = app.test_client()
    loaded = _loads(monkeypatch)
    for _ in range(2):
        assert client.get(LIST, headers={"X-API-Key": api_keys["pro"]}).status_code == 200
    assert loaded.count("StrainArgs") == 2


def test_the_memory_is_bounded_and_forgets_the_least_recently_used() -> None:
    memo = ParsedQueries(size=2)
    schema = StrainArgs()
    for query in (b"a", b"b", b"a", b"c"):  # "a" used again: "b" is now the oldest
        if memo.get((1, schema, query)) is None:
            memo.put((1, schema, query), query.decode())
    assert [memo.get((1, schema, q)) for q in (b"a", b"b", b"c")] == ["a", None, "c"]
