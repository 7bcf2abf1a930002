"""Strong ETags on REST reads; If-None-Match answers 304 without spending quota."""

from datetime import date

from flask import Flask, g
from flask.testing import FlaskClient

from models import DatasetInfo
from service import keys
from service.dataset import data_version
from web.conditional import IssuedTags, request_etag


def _free_key(app: Flask) -> str:
    with app.extensions["cds.sessions"]() as db:
        new = keys.create_key(db, tier="free")
        db.commit()
    return new.plaintext


def test_a_200_carries_a_strong_etag_and_cache_control(client: FlaskClient, api_keys: dict) -> None:
    response = client.get("/api/v1/strains?limit=2", headers={"X-API-Key": api_keys["pro"]})
    tag, weak = response.get_etag()
    assert len(tag) == 32
    assert weak is False
    assert response.headers["Cache-Control"] == "private, no-cache"


def test_matching_if_none_match_is_a_304_that_is_not_charged(
    app: Flask, client: FlaskClient
) -> None:
    key = _free_key(app)
    first = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    tag = first.get_etag()[0]
    assert first.headers["X-RateLimit-Remaining"] == "99"
    for _ in range(3):
        again = client.get(
            "/api/v1/laws/CA", headers={"X-API-Key": key, "If-None-Match": f'"{tag}"'}
        )
        assert again.status_code == 304
        assert again.data == b""
        assert again.get_etag() == (tag, False)
        assert again.headers["X-RateLimit-Remaining"] == "99"
    charged = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert charged.headers["X-RateLimit-Remaining"] == "98"


def test_a_compressed_variant_of_the_tag_also_revalidates(
    client: FlaskClient, api_keys: dict
) -> None:
    headers = {"X-API-Key": api_keys["pro"], "Accept-Encoding": "br"}
    first = client.get("/api/v1/strains?limit=50", headers=headers)
    assert first.headers["Content-Encoding"] == "br"
    tag = first.get_etag()[0]
    assert tag.endswith(":br")
    again = client.get("/api/v1/strains?limit=50", headers={**headers, "If-None-Match": f'"{tag}"'})
    assert again.status_code == 304


def test_tags_differ_by_request_but_not_by_key_spelling_or_parameter_order(
    client: FlaskClient, api_keys: dict
) -> None:
    headers = {"X-API-Key": api_keys["pro"]}

    def tag(url: str) -> str:
        return client.get(url, headers=headers).get_etag()[0]

    assert tag("/api/v1/strains?type=indica&limit=3") == tag("/api/v1/strains?limit=3&type=indica")
    assert tag("/api/v1/strains?limit=3") != tag("/api/v1/strains?limit=4")
    assert tag(f"/api/v1/laws/CA?api_key={api_keys['free']}") == tag("/api/v1/laws/CA")


def test_one_number_in_any_spelling_has_one_tag_and_revalidates_across_spellings(
    client: FlaskClient, api_keys: dict
) -> None:
    headers = {"X-API-Key": api_keys["pro"]}
    near = "/api/v1/dispensaries?zip=80202&"
    plain = client.get(near + "radius=10&limit=5", headers=headers)
    tag = plain.get_etag()[0]
    for spelling in ("radius=1e1&limit=5", "radius=10.0&limit=5e0", "radius=1.0E%2B1&limit=%2B05"):
        other = client.get(near + spelling, headers=headers)
        assert other.status_code == 200, other.get_json()
        assert other.get_etag()[0] == tag, spelling
        assert other.data == plain.data
        again = client.get(near + spelling, headers={**headers, "If-None-Match": f'"{tag}"'})
        assert again.status_code == 304, spelling
    assert client.get(near + "radius=10.5&limit=5", headers=headers).get_etag()[0] != tag
    # A text that merely looks like a number stays text: the search for "1e1" is not "10".
    search = "/api/v1/search?q="
    assert (
        client.get(search + "1e1", headers=headers).get_etag()[0]
        != (client.get(search + "10", headers=headers).get_etag()[0])
    )


def test_a_new_data_version_changes_every_tag(make_app, api_keys: dict) -> None:
    app = make_app(STATE_TTL_MS=0)  # read the data version on every request
    client = app.test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    before = client.get("/api/v1/laws/CA", headers=headers).get_etag()[0]
    with app.extensions["cds.sessions"]() as db:
        info = db.query(DatasetInfo).one()
        info.version += 1
        db.commit()
    try:
        after = client.get("/api/v1/laws/CA", headers={**headers, "If-None-Match": f'"{before}"'})
        assert after.status_code == 200
        assert after.get_etag()[0] != before
    finally:
        with app.extensions["cds.sessions"]() as db:
            db.query(DatasetInfo).one().version -= 1
            db.commit()


def test_errors_and_graphql_carry_no_etag(client: FlaskClient, api_keys: dict) -> None:
    headers = {"X-API-Key": api_keys["pro"]}
    assert client.get("/api/v1/strains/nope", headers=headers).get_etag() == (None, None)
    graphql = client.post("/graphql", json={"query": "{ laws { state } }"}, headers=headers)
    assert graphql.get_etag() == (None, None)


def test_if_none_match_star_is_no_304_for_a_missing_resource_or_a_bad_parameter(
    app: Flask, client: FlaskClient
) -> None:
    key = _free_key(app)
    headers = {"X-API-Key": key, "If-None-Match": "*"}
    missing = client.get("/api/v1/strains/no-such-strain", headers=headers)
    assert missing.status_code == 404
    invalid = client.get("/api/v1/strains?limit=0", headers=headers)
    assert invalid.status_code == 400
    # Both ran like any request: charged.
    assert invalid.headers["X-RateLimit-Remaining"] == "98"


def test_if_none_match_star_on_an_existing_resource_is_a_304_once_the_request_ran(
    app: Flask, client: FlaskClient
) -> None:
    key = _free_key(app)
    first = client.get("/api/v1/laws/OR", headers={"X-API-Key": key, "If-None-Match": "*"})
    assert first.status_code == 304
    assert first.data == b""
    assert first.headers["X-RateLimit-Remaining"] == "99"  # it ran: charged like its 200
    free = client.get("/api/v1/laws/OR", headers={"X-API-Key": key, "If-None-Match": "*"})
    assert free.status_code == 304
    # The first run showed the request succeeds: the same tag is now answered free.
    assert free.headers["X-RateLimit-Remaining"] == "99"


def test_a_forged_tag_for_a_failing_request_gets_the_error_not_a_304(
    app: Flask, client: FlaskClient
) -> None:
    key = _free_key(app)
    with (
        app.test_request_context("/api/v1/strains/no-such-strain"),
        app.extensions["cds.engine"].connect() as conn,
    ):
        forged = request_etag(data_version(conn), date.today())
    response = client.get(
        "/api/v1/strains/no-such-strain", headers={"X-API-Key": key, "If-None-Match": f'"{forged}"'}
    )
    assert response.status_code == 404


def test_a_key_with_no_quota_left_gets_429_not_a_free_304(app: Flask, client: FlaskClient) -> None:
    with app.extensions["cds.sessions"]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=2).plaintext
        db.commit()
    headers = {"X-API-Key": key}
    tag = client.get("/api/v1/laws/WA", headers=headers).get_etag()[0]
    assert client.get("/api/v1/laws/WA", headers=headers).status_code == 200
    refused = client.get("/api/v1/laws/WA", headers={**headers, "If-None-Match": f'"{tag}"'})
    assert refused.status_code == 429


def test_issued_tags_forget_the_least_recently_sent_first() -> None:
    issued = IssuedTags(size=2)
    for tag in ("a", "b", "a", "c"):  # "a" sent again: "b" is now the oldest
        issued.add(tag)
    assert ("a" in issued, "b" in issued, "c" in issued) == (True, False, True)


def test_without_a_replay_store_no_answer_is_marked_for_replay(make_app, api_keys: dict) -> None:
    for cache_mb, marked in ((0, False), (8, True)):
        app = make_app(SPEED_TRICKS=True, PAGE_CACHE_MB=cache_mb)
        with app.test_client() as client:
            response = client.get("/api/v1/laws/CA", headers={"X-API-Key": api_keys["free"]})
            assert response.status_code == 200
            assert response.headers["ETag"]
            assert ("replay_mark" in g) is marked
