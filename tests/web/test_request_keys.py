"""One "today" per request, and the one digest ETags, replay keys and GraphQL result tags use."""

import hashlib
from datetime import UTC, date, datetime

import pytest
from flask import Flask
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

import web.today
from web.accel.replay import replay_key
from web.caching import cache_key
from web.conditional import request_etag

DAY = date(2026, 11, 23)


def _old_digest(*parts: object) -> str:
    """The SHA-256 the three key builders each wrote out before they shared cache_key."""
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def test_an_etag_is_the_same_string_as_before(app: Flask) -> None:
    with app.test_request_context("/api/v1/strains?type=indica&api_key=k&limit=3"):
        tag = request_etag(7, DAY)
    expected = _old_digest(7, "2026-11-23", "/api/v1/strains", [("limit", "3"), ("type", "indica")])
    assert tag == expected[:32]


def test_a_replay_key_is_the_same_string_as_before() -> None:
    body = b'{"query": "{ laws { stateCode } }"}'
    environ = EnvironBuilder(
        path="/graphql", method="POST", headers={"Origin": "https://ok.example"}, data=body
    ).get_environ()
    key = replay_key(Request(environ), 7, DAY, body)
    expected = _old_digest(
        7,
        "2026-11-23",
        "POST",
        "/graphql",
        [],
        None,
        "https://ok.example",
        None,
        hashlib.sha256(body).hexdigest(),
    )
    assert key == expected


def test_cache_key_digests_the_repr_of_its_parts() -> None:
    assert cache_key(1, "a", None) == hashlib.sha256(b"(1, 'a', None)").hexdigest()
    assert cache_key("é") == hashlib.sha256("('é',)".encode()).hexdigest()


class _Clock:
    """A clock that is a day later on every reading, counting the readings."""

    calls = 0

    @classmethod
    def read(cls) -> datetime:
        cls.calls += 1
        day = date.fromordinal(DAY.toordinal() + cls.calls)
        return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/deals?limit=2",
        "/api/v1/search?q=kush",
        "/api/v1/deals?limit=2&open_now=true",
        "/api/v1/dispensaries/disp_1001",
    ],
)
def test_a_request_reads_the_clock_once(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    monkeypatch.setattr(_Clock, "calls", 0)
    monkeypatch.setattr(web.today, "_read_clock", _Clock.read)
    app: Flask = make_app(PAGE_CACHE_MB=0)
    response = app.test_client().get(path, headers={"X-API-Key": api_keys["pro"]})
    assert response.status_code == 200
    # The ETag and the view share one day, and the day and "now" come from one reading.
    assert _Clock.calls == 1


def test_a_graphql_operation_reads_the_clock_once(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Clock, "calls", 0)
    monkeypatch.setattr(web.today, "_read_clock", _Clock.read)
    app: Flask = make_app(PAGE_CACHE_MB=0)
    response = app.test_client().post(
        "/graphql",
        json={"query": "{ deals(limit: 1) { total } }"},
        headers={"X-API-Key": api_keys["pro"]},
    )
    assert response.status_code == 200
    assert _Clock.calls == 1
