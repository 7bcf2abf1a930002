import time

import pytest
from flask.testing import FlaskClient

from service import keys


def _fresh_key(app, tier: str, limit: int | None = None) -> str:
    with app.extensions["cds.sessions"]() as db:
        new = keys.create_key(db, tier=tier, hourly_limit=limit)
        db.commit()
    return new.plaintext


@pytest.mark.parametrize(("tier", "limit"), [("free", 100), ("pro", 1000), ("enterprise", 5000)])
def test_headers_announce_the_tier_limit(client: FlaskClient, api_keys: dict, tier, limit) -> None:
    before = time.time()
    response = client.get("/api/v1/laws/NY", headers={"X-API-Key": api_keys[tier]})
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Limit"] == str(limit)
    assert response.headers["X-RateLimit-Remaining"] == str(limit - 1)
    reset = int(response.headers["X-RateLimit-Reset"])
    # Sliding hour: the count next goes down within the hour (when the current clock hour ends).
    assert before < reset <= time.time() + 3601


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/v1/strains?limit=0", 400),
        ("/api/v1/strains/no-such-strain", 404),
        ("/api/v1/nowhere", 404),
    ],
)
def test_error_responses_with_a_valid_key_carry_quota_headers_and_are_charged(
    client: FlaskClient, api_keys: dict, path: str, status: int
) -> None:
    response = client.get(path, headers={"X-API-Key": api_keys["free"]})
    assert response.status_code == status
    assert response.headers["X-RateLimit-Limit"] == "100"
    assert response.headers["X-RateLimit-Remaining"] == "99"


def test_method_not_allowed_carries_allow_and_quota_headers(
    client: FlaskClient, api_keys: dict
) -> None:
    response = client.post("/api/v1/strains", headers={"X-API-Key": api_keys["free"]})
    assert response.status_code == 405
    assert response.get_json()["error"]["code"] == 405
    assert "GET" in response.headers["Allow"]
    assert response.headers["X-RateLimit-Remaining"] == "99"


def test_free_quota_is_one_bucket_shared_across_endpoints(app, client: FlaskClient) -> None:
    key = _fresh_key(app, "free")
    paths = [
        "/api/v1/laws/CA",
        "/api/v1/strains?limit=1",
        "/api/v1/doctors?limit=1",
        "/api/v1/deals?limit=1",
        "/api/v1/search?q=an&limit=1",
    ]
    statuses = [
        client.get(paths[i % len(paths)], headers={"X-API-Key": key}).status_code
        for i in range(100)
    ]
    assert statuses == [200] * 100
    blocked = client.get("/api/v1/dispensaries?limit=1", headers={"X-API-Key": key})
    assert blocked.status_code == 429
    body = blocked.get_json()
    assert body["success"] is False
    assert body["error"]["code"] == 429
    assert body["error"]["docs"].endswith("#error-429")
    assert blocked.headers["X-RateLimit-Remaining"] == "0"
    assert 0 < int(blocked.headers["Retry-After"]) <= 3600


def test_enterprise_custom_limit_is_enforced(app, client: FlaskClient) -> None:
    key = _fresh_key(app, "enterprise", limit=3)
    statuses = [
        client.get("/api/v1/laws/CA", headers={"X-API-Key": key}).status_code for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]


def test_one_key_exhausted_leaves_another_untouched(app, client: FlaskClient) -> None:
    exhausted = _fresh_key(app, "enterprise", limit=1)
    other = _fresh_key(app, "enterprise", limit=1)
    assert client.get("/api/v1/laws/CA", headers={"X-API-Key": exhausted}).status_code == 200
    assert client.get("/api/v1/laws/CA", headers={"X-API-Key": exhausted}).status_code == 429
    assert client.get("/api/v1/laws/CA", headers={"X-API-Key": other}).status_code == 200


def test_requests_without_a_valid_key_are_not_charged(app, client: FlaskClient) -> None:
    key = _fresh_key(app, "free")
    for _ in range(5):
        client.get("/api/v1/laws/CA", headers={"X-API-Key": "wrong"})
    response = client.get("/api/v1/laws/CA", headers={"X-API-Key": key})
    assert response.headers["X-RateLimit-Remaining"] == "99"


def test_successful_responses_carry_no_retry_after(client: FlaskClient, api_keys: dict) -> None:
    response = client.get("/api/v1/laws/CA", headers={"X-API-Key": api_keys["free"]})
    assert response.status_code == 200
    assert "Retry-After" not in response.headers
    assert (
        client.get("/api/v1/strains?limit=0", headers={"X-API-Key": api_keys["free"]}).headers.get(
            "Retry-After"
        )
        is None
    )
