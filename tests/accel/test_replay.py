"""web.accel.replay: replayed responses equal the Flask path's, byte for byte, stay authenticated,
charged, logged and counted; a stored response is filed under everything it depends on."""

import io
import json
from collections.abc import Callable
from datetime import date

import pytest
from flask import Flask
from werkzeug.test import EnvironBuilder, TestResponse, run_wsgi_app
from werkzeug.wrappers import Request

from models import DatasetInfo
from service import keys
from web.accel.replay import replay_key

pytestmark = pytest.mark.usefixtures("speed_tricks")  # the replay lane is a speed trick

# The lane answers only for a key and data version read within STATE_TTL_MS (1 s by default): on
# a busy machine a first request can take longer than that, and the repeat would read them again.
# Tests that expect a repeat to make no SQL keep both for a minute.
STEADY = {"STATE_TTL_MS": 60_000}
METRICS_TOKEN = "scrape-token-for-tests-0123"
SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}
# Headers that differ between any two responses to the same request.
PER_REQUEST = {"X-Request-ID", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
NESTED = (
    '{ dispensaries(state: "CO", limit: 3) { total items { id name deals(limit: 2) { title } '
    "law { recreational } } } }"
)


def _fresh_key(app: Flask, tier: str = "free", limit: int | None = None) -> str:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier=tier, hourly_limit=limit).plaintext
        db.commit()
    return key


def _steady_headers(response: TestResponse) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name not in PER_REQUEST}


def _log_lines(stream: io.BytesIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def _replay_pair(
    app: Flask, count_statements, send: Callable[[], TestResponse]
) -> tuple[TestResponse, TestResponse]:
    """The response from the Flask path, then the same request again, which makes no SQL."""
    first = send()
    with count_statements(app) as seen:
        again = send()
    assert seen == [], "the repeat was not replayed"
    return first, again


GET_CASES = {
    "list": ("/api/v1/strains?type=hybrid&limit=5", {}),
    "detail": ("/api/v1/dispensaries/disp_1001", {}),
    "search": ("/api/v1/search?q=blue&limit=3", {}),
    "brotli": ("/api/v1/strains?limit=40", {"Accept-Encoding": "br"}),
    "gzip": ("/api/v1/strains?limit=40", {"Accept-Encoding": "gzip"}),
    "browser": ("/api/v1/laws/CA", {"Origin": "https://shop.example"}),
    "graphql get": (f"/graphql?query={NESTED}", {}),
}


@pytest.mark.parametrize("case", GET_CASES)
def test_a_replayed_get_equals_the_first_answer_but_for_per_request_headers(
    make_app, api_keys: dict, count_statements, case: str
) -> None:
    app = make_app(**STEADY)
    client = app.test_client()
    path, extra = GET_CASES[case]
    headers = {"X-API-Key": api_keys["pro"], **extra}
    first, again = _replay_pair(app, count_statements, lambda: client.get(path, headers=headers))
    assert first.status_code == again.status_code == 200
    assert _steady_headers(again) == _steady_headers(first)
    assert int(again.headers["X-RateLimit-Remaining"]) == (
        int(first.headers["X-RateLimit-Remaining"]) - 1
    )
    assert again.headers["X-Request-ID"] != first.headers["X-Request-ID"]
    if case == "graphql get":
        first_body, again_body = first.get_json(), again.get_json()
        assert again_body["data"] == first_body["data"]
        assert again_body["extensions"]["rateLimit"]["remaining"] == int(
            again.headers["X-RateLimit-Remaining"]
        )
    else:
        assert again.data == first.data


def test_a_replayed_graphql_post_reports_the_current_quota_in_its_body(
    make_app, count_statements
) -> None:
    app = make_app(**STEADY)
    client = app.test_client()
    key = _fresh_key(app)
    first, again = _replay_pair(
        app,
        count_statements,
        lambda: client.post("/graphql", json={"query": NESTED}, headers={"X-API-Key": key}),
    )
    assert _steady_headers(again) == _steady_headers(first)
    first_body, again_body = first.get_json(), again.get_json()
    assert again_body["data"] == first_body["data"]
    assert first_body["extensions"]["rateLimit"]["remaining"] == 99
    assert again_body["extensions"]["rateLimit"] == {
        "limit": 100,
        "remaining": 98,
        "reset": int(again.headers["X-RateLimit-Reset"]),
    }
    assert list(json.loads(again.data)) == ["data", "extensions"]


def test_replays_share_one_quota_with_the_flask_path_and_end_in_a_429(make_app) -> None:
    app = make_app()
    client = app.test_client()
    key = _fresh_key(app, "enterprise", limit=3)
    rest = [client.get("/api/v1/laws/WA", headers={"X-API-Key": key}) for _ in range(2)]
    graphql = client.post(
        "/graphql", json={"query": '{ law(state: "WA") { state } }'}, headers={"X-API-Key": key}
    )
    refused = client.get("/api/v1/laws/WA", headers={"X-API-Key": key})
    assert [r.status_code for r in rest] == [200, 200]
    assert [r.headers["X-RateLimit-Remaining"] for r in rest] == ["2", "1"]
    assert graphql.status_code == 200
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == 429
    assert refused.headers["X-RateLimit-Remaining"] == "0"


def test_a_stored_read_is_replayed_for_any_key_spelling_and_parameter_order(
    make_app, api_keys: dict, count_statements
) -> None:
    app = make_app(**STEADY)
    client = app.test_client()
    first = client.get(
        "/api/v1/deals?limit=3&category=flower", headers={"X-API-Key": api_keys["pro"]}
    )
    # The free key must be known to this worker before the lane may answer for it.
    client.get("/api/v1/laws/CA", headers={"X-API-Key": api_keys["free"]})
    with count_statements(app) as seen:
        again = client.get(f"/api/v1/deals?category=flower&api_key={api_keys['free']}&limit=3")
    assert seen == []
    assert again.data == first.data
    assert again.headers["X-RateLimit-Limit"] == "100"


def test_a_stored_read_is_replayed_for_any_spelling_of_its_numbers(
    make_app, api_keys: dict, count_statements
) -> None:
    app = make_app(**STEADY)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    first = client.get("/api/v1/strains?thc_min=20&limit=10&offset=0", headers=headers)
    with count_statements(app) as seen:
        again = client.get("/api/v1/strains?thc_min=2e1&limit=1E1&offset=-0.0", headers=headers)
    assert seen == []
    assert again.data == first.data


def test_an_unknown_or_invalid_key_is_never_replayed(make_app, api_keys: dict) -> None:
    app = make_app()
    client = app.test_client()
    path = "/api/v1/laws/NV"
    assert client.get(path, headers={"X-API-Key": api_keys["pro"]}).status_code == 200
    for presented in ("cds_live_" + "A" * 32, "nonsense", ""):
        refused = client.get(path, headers={"X-API-Key": presented})
        assert refused.status_code == 401
        assert refused.get_json()["success"] is False
    assert client.get(path).status_code == 401


def test_a_graphql_post_that_cannot_be_replayed_reaches_flask_with_its_body(
    make_app, api_keys: dict
) -> None:
    app = make_app()
    client = app.test_client()
    known = {"X-API-Key": api_keys["pro"]}
    assert client.post("/graphql", json={"query": NESTED}, headers=known).status_code == 200
    # A verified key: the lane reads the body to look for a match, finds none and puts the body
    # back for Flask.
    other = client.post("/graphql", json={"query": "{ laws { stateCode } }"}, headers=known)
    assert other.status_code == 200
    assert {"stateCode": "CA"} in other.get_json()["data"]["laws"]
    # A stored response matches, but this key has not been verified yet: the lane leaves the
    # request (body unread) to Flask.
    newcomer = _fresh_key(app)
    response = client.post("/graphql", json={"query": NESTED}, headers={"X-API-Key": newcomer})
    assert response.status_code == 200
    assert response.get_json()["data"]["dispensaries"]["total"] >= 1
    assert response.get_json()["extensions"]["rateLimit"]["remaining"] == 99


class UnsentBody(io.RawIOBase):
    """A body announced by Content-Length and never sent: reading it fails the test."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        raise AssertionError("the request body was read")


@pytest.mark.parametrize(
    "presented",
    [None, "cds_live_" + "A" * 32, "not-a-key"],
    ids=["no key", "well-formed, never issued", "malformed"],
)
def test_a_post_without_a_verified_key_is_refused_without_reading_its_body(
    make_app, api_keys: dict, presented: str | None
) -> None:
    app = make_app()
    client = app.test_client()
    # The lane is ready to replay: data version read, a key verified, this document stored.
    headers = {"X-API-Key": api_keys["pro"]}
    assert client.post("/graphql", json={"query": NESTED}, headers=headers).status_code == 200
    sent = {} if presented is None else {"X-API-Key": presented}
    environ = EnvironBuilder(
        path="/graphql", method="POST", headers=sent, content_type="application/json"
    ).get_environ()
    environ |= {"CONTENT_LENGTH": "60000", "wsgi.input": UnsentBody()}
    body, status, _headers = run_wsgi_app(app, environ)
    assert status == "401 UNAUTHORIZED"
    assert json.loads(b"".join(body))["errors"][0]["extensions"]["code"] == 401


def test_conditional_and_head_requests_are_left_to_flask(make_app, api_keys: dict) -> None:
    app = make_app()
    client = app.test_client()
    key = _fresh_key(app)
    first = client.get("/api/v1/laws/ME", headers={"X-API-Key": key})
    tag = first.get_etag()[0]
    revalidated = client.get(
        "/api/v1/laws/ME", headers={"X-API-Key": key, "If-None-Match": f'"{tag}"'}
    )
    head = client.head("/api/v1/laws/ME", headers={"X-API-Key": key})
    assert revalidated.status_code == 304  # not charged
    assert revalidated.headers["X-RateLimit-Remaining"] == "99"
    assert head.status_code == 200
    assert head.data == b""
    assert head.headers["X-RateLimit-Remaining"] == "98"


def test_errors_and_graphql_errors_are_never_stored(
    make_app, api_keys: dict, count_statements
) -> None:
    app = make_app()
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    bad_graphql = {"query": '{ strain(slug: "blue-dream") { slug nope } }'}
    for _ in range(2):
        with count_statements(app) as seen:
            missing = client.get("/api/v1/strains/no-such-strain", headers=headers)
        assert missing.status_code == 404
    assert seen, "the second 404 ran its query again"
    answers = [client.post("/graphql", json=bad_graphql, headers=headers) for _ in range(2)]
    assert [a.get_json()["errors"][0]["extensions"]["code"] for a in answers] == [400, 400]


def test_a_new_data_version_is_not_answered_from_old_responses(
    make_app, api_keys: dict, count_statements
) -> None:
    app = make_app(STATE_TTL_MS=0)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    first = client.get("/api/v1/laws/CA", headers=headers)
    with app.extensions["cds.sessions"]() as db:
        db.query(DatasetInfo).one().version += 1
        db.commit()
    try:
        with count_statements(app) as seen:
            after = client.get("/api/v1/laws/CA", headers=headers)
    finally:
        with app.extensions["cds.sessions"]() as db:
            db.query(DatasetInfo).one().version -= 1
            db.commit()
    assert after.status_code == 200
    assert after.get_etag() != first.get_etag()
    assert any("laws" in statement for statement in seen)


def test_with_the_cache_off_nothing_is_replayed(make_app, api_keys: dict, count_statements) -> None:
    app = make_app(PAGE_CACHE_MB=0)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    client.get("/api/v1/laws/CA", headers=headers)
    with count_statements(app) as seen:
        assert client.get("/api/v1/laws/CA", headers=headers).status_code == 200
    assert any("laws" in statement for statement in seen)


def test_a_replayed_read_checks_the_bearer_token_too(make_app, api_keys: dict) -> None:
    client = make_app().test_client()
    good = {"Authorization": f"Bearer {api_keys['free']}"}
    first = client.get("/api/v1/strains?limit=1", headers=good)
    again = client.get("/api/v1/strains?limit=1", headers=good)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.data == first.data
    refused = client.get("/api/v1/strains?limit=1", headers={"Authorization": "Bearer garbage"})
    assert refused.status_code == 401


def test_replayed_requests_are_logged_and_counted_like_any_other(
    make_app, api_keys: dict, count_statements
) -> None:
    stream = io.BytesIO()
    # STATE_TTL_MS: a slow first request must not make the repeats read the key and version.
    app = make_app(ACCESS_LOG_STREAM=stream, METRICS_TOKEN=METRICS_TOKEN, STATE_TTL_MS=60_000)
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    ids = [f"replay-{n}" for n in range(3)]
    for n, request_id in enumerate(ids):
        with count_statements(app) as seen:
            response = client.get(
                "/api/v1/laws/OR", headers={**headers, "X-Request-ID": request_id}
            )
        assert response.status_code == 200
        assert response.headers["X-Request-ID"] == request_id
        assert (seen == []) == (n > 0)  # the repeats were replayed without SQL
    records = _log_lines(stream)
    assert [(r["request_id"], r["route"], r["status"]) for r in records] == [
        (request_id, "/api/v1/laws/<string:state>", 200) for request_id in ids
    ]
    assert len({r["key_id"] for r in records}) == 1
    exposition = client.get("/metrics", headers=SCRAPE).get_data(as_text=True)
    counted = [
        line
        for line in exposition.splitlines()
        if line.startswith("flask_http_request_duration_seconds_count")
        and 'url_rule="/api/v1/laws/<string:state>"' in line
    ]
    assert len(counted) == 1
    assert counted[0].endswith(" 3.0")


DAY = date(2026, 11, 23)


def _key(path: str, *, version: int = 3, day: date = DAY, body: bytes = b"", **headers) -> str:
    request = Request(EnvironBuilder(path=path, headers=headers).get_environ())
    return replay_key(request, version, day, body)


def test_parameter_order_and_the_api_key_parameter_do_not_matter() -> None:
    assert _key("/api/v1/strains?type=indica&limit=3") == _key(
        "/api/v1/strains?limit=3&api_key=cds_live_x&type=indica"
    )


def test_data_version_day_path_and_parameters_all_matter() -> None:
    base = _key("/api/v1/strains?limit=3")
    assert (
        len(
            {
                base,
                _key("/api/v1/strains?limit=3", version=4),
                _key("/api/v1/strains?limit=3", day=date(2026, 11, 24)),
                _key("/api/v1/strains?limit=4"),
                _key("/api/v1/strains?limit=3&limit=3"),
                _key("/api/v1/deals?limit=3"),
            }
        )
        == 6
    )


def test_the_headers_a_response_varies_by_and_the_body_matter() -> None:
    base = _key("/graphql", body=b'{"query": "{ laws { state } }"}')
    assert (
        len(
            {
                base,
                _key(
                    "/graphql", body=b'{"query": "{ laws { state } }"}', **{"Accept-Encoding": "br"}
                ),
                _key(
                    "/graphql", body=b'{"query": "{ laws { state } }"}', Origin="https://a.example"
                ),
                _key("/graphql", body=b'{"query": "{ laws { stateCode } }"}'),
                _key(
                    "/graphql",
                    body=b'{"query": "{ laws { state } }"}',
                    **{"Content-Type": "application/graphql"},
                ),
            }
        )
        == 5
    )
    assert base == _key("/graphql", body=b'{"query": "{ laws { state } }"}', **{"X-API-Key": "a"})
