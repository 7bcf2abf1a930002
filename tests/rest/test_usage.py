"""GET /api/v1/usage reports the caller's quota without spending it."""

from flask import Flask
from flask.testing import FlaskClient

from service import keys


def _key(app: Flask, tier: str, limit: int | None = None) -> str:
    with app.extensions["cds.sessions"]() as db:
        new = keys.create_key(db, tier=tier, hourly_limit=limit)
        db.commit()
    return new.plaintext


def test_usage_reports_tier_limit_and_remaining_and_is_not_charged(
    app: Flask, client: FlaskClient
) -> None:
    key = _key(app, "free")
    headers = {"X-API-Key": key}
    for _ in range(3):
        client.get("/api/v1/laws/CA", headers=headers)
    first = client.get("/api/v1/usage", headers=headers)
    second = client.get("/api/v1/usage", headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.get_json()["data"]["remaining"] == second.get_json()["data"]["remaining"] == 97
    data = first.get_json()["data"]
    assert {k: data[k] for k in ("tier", "limit")} == {"tier": "free", "limit": 100}
    after = client.get("/api/v1/laws/CA", headers=headers)
    assert after.headers["X-RateLimit-Remaining"] == "96"
    # One rounding everywhere: /usage, a charged response and a free 304 name the same second.
    assert after.headers["X-RateLimit-Reset"] == str(data["reset"])
    revalidated = client.get(
        "/api/v1/laws/CA", headers={**headers, "If-None-Match": after.headers["ETag"]}
    )
    assert revalidated.status_code == 304
    assert revalidated.headers["X-RateLimit-Reset"] == str(data["reset"])
    assert revalidated.headers["X-RateLimit-Remaining"] == "96"
    assert "meta" not in first.get_json()


def test_usage_still_answers_when_the_quota_is_spent(app: Flask, client: FlaskClient) -> None:
    key = _key(app, "enterprise", limit=2)
    headers = {"X-API-Key": key}
    statuses = [client.get("/api/v1/laws/CA", headers=headers).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    usage = client.get("/api/v1/usage", headers=headers)
    assert usage.status_code == 200
    assert usage.get_json()["data"] == {
        "tier": "enterprise",
        "limit": 2,
        "remaining": 0,
        "reset": usage.get_json()["data"]["reset"],
    }


def test_usage_needs_a_valid_key(client: FlaskClient) -> None:
    assert client.get("/api/v1/usage").status_code == 401
