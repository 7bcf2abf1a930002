"""Serialized REST pages are reused: same bytes, no SQL, still authenticated and charged."""

from models import DatasetInfo

PATH = "/api/v1/strains?type=hybrid&limit=5"


def test_a_repeated_read_is_served_from_the_cache_and_still_charged(
    make_app, api_keys, count_statements
) -> None:
    app = make_app()
    headers = {"X-API-Key": api_keys["free"]}
    with app.test_client() as client:
        first = client.get(PATH, headers=headers)
        with count_statements(app) as seen:
            again = client.get("/api/v1/strains?limit=5&type=hybrid", headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.data == first.data
    assert again.get_etag() == first.get_etag()
    assert seen == []  # key, data version and page all came from the worker's caches
    assert int(again.headers["X-RateLimit-Remaining"]) == (
        int(first.headers["X-RateLimit-Remaining"]) - 1
    )


def test_a_cached_page_still_needs_a_valid_key(make_app, api_keys, count_statements) -> None:
    app = make_app()
    with app.test_client() as client:
        assert client.get(PATH, headers={"X-API-Key": api_keys["pro"]}).status_code == 200
        refused = client.get(PATH, headers={"X-API-Key": "cds_live_" + "A" * 32})
    assert refused.status_code == 401
    assert refused.get_json()["success"] is False


def test_errors_are_not_cached(make_app, api_keys, count_statements) -> None:
    app = make_app()
    headers = {"X-API-Key": api_keys["pro"]}
    with app.test_client() as client:
        for _ in range(2):
            with count_statements(app) as seen:
                response = client.get("/api/v1/strains/no-such-strain", headers=headers)
            assert response.status_code == 404
        assert seen, "the second 404 ran its query again"


def test_a_new_data_version_turns_the_cache_over(make_app, api_keys, count_statements) -> None:
    app = make_app(STATE_TTL_MS=0)
    headers = {"X-API-Key": api_keys["pro"]}
    with app.test_client() as client:
        first = client.get(PATH, headers=headers)
        with app.extensions["cds.sessions"]() as db:
            db.query(DatasetInfo).one().version += 1
            db.commit()
        try:
            with count_statements(app) as seen:
                after = client.get(PATH, headers=headers)
        finally:
            with app.extensions["cds.sessions"]() as db:
                db.query(DatasetInfo).one().version -= 1
                db.commit()
    assert after.status_code == 200
    assert after.get_etag() != first.get_etag()
    assert any("strains" in statement for statement in seen)


def test_the_cache_can_be_turned_off(make_app, api_keys, count_statements) -> None:
    app = make_app(PAGE_CACHE_MB=0)
    headers = {"X-API-Key": api_keys["pro"]}
    with app.test_client() as client:
        client.get(PATH, headers=headers).close()
        with count_statements(app) as seen:
            assert client.get(PATH, headers=headers).status_code == 200
    assert any("strains" in statement for statement in seen)
