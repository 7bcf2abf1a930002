import time

import pytest
from flask.testing import FlaskClient

from service import keys

ENDPOINTS = [
    "/api/v1/strains",
    "/api/v1/strains/anything",
    "/api/v1/dispensaries",
    "/api/v1/dispensaries/disp_1",
    "/api/v1/deals",
    "/api/v1/doctors",
    "/api/v1/laws/CA",
    "/api/v1/search?q=kush",
]


@pytest.mark.parametrize("path", ENDPOINTS)
def test_every_endpoint_rejects_a_missing_key_with_401(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 401
    body = response.get_json()
    assert body["success"] is False
    assert body["error"]["code"] == 401
    assert body["error"]["message"] == "API key missing: send it in the X-API-Key header"
    assert body["error"]["docs"].endswith("/docs/errors#error-401")
    assert "X-RateLimit-Limit" not in response.headers


@pytest.mark.parametrize(
    "bad_key",
    ["nonsense", "cds_live_" + "a" * 32, keys.generate_plaintext(), "x" * 5000],
)
def test_invalid_keys_are_rejected_with_401(client: FlaskClient, bad_key: str) -> None:
    response = client.get("/api/v1/strains", headers={"X-API-Key": bad_key})
    assert response.status_code == 401
    assert response.get_json()["error"]["message"] == "API key invalid"


def test_key_in_query_parameter_is_accepted(client: FlaskClient, api_keys: dict) -> None:
    response = client.get("/api/v1/laws/CA", query_string={"api_key": api_keys["free"]})
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Limit"] == "100"


def test_header_wins_over_query_parameter(client: FlaskClient, api_keys: dict) -> None:
    valid_header = client.get(
        "/api/v1/laws/CA",
        headers={"X-API-Key": api_keys["pro"]},
        query_string={"api_key": "garbage"},
    )
    assert valid_header.status_code == 200
    assert valid_header.headers["X-RateLimit-Limit"] == "1000"
    invalid_header = client.get(
        "/api/v1/laws/CA",
        headers={"X-API-Key": "garbage"},
        query_string={"api_key": api_keys["pro"]},
    )
    assert invalid_header.status_code == 401


def _revoke_between_requests(app, ttl_wait_s: float) -> tuple[int, int]:
    """Statuses of a request before and after revoking its key (``ttl_wait_s`` in between)."""
    factory = app.extensions["cds.sessions"]
    with factory() as db:
        new = keys.create_key(db, tier="free", name="to revoke")
        db.commit()
        key_id = new.record.id
    headers = {"X-API-Key": new.plaintext}
    with app.test_client() as client:
        before = client.get("/api/v1/laws/CA", headers=headers)
        with factory() as db:
            keys.revoke_key(db, key_id)
            db.commit()
        time.sleep(ttl_wait_s)
        after = client.get("/api/v1/laws/CA", headers=headers)
    return before.status_code, after.status_code


def test_revoked_key_is_rejected_on_the_next_request_without_state_cache(make_app) -> None:
    assert _revoke_between_requests(make_app(STATE_TTL_MS=0), 0) == (200, 401)


def test_revoked_key_is_rejected_once_the_state_cache_expires(make_app) -> None:
    # Workers reuse a key lookup for STATE_TTL_MS; after that the revocation holds everywhere.
    assert _revoke_between_requests(make_app(STATE_TTL_MS=50), 0.2) == (200, 401)


def test_repeated_failed_keys_from_one_address_are_throttled(client: FlaskClient) -> None:
    statuses = [
        client.get("/api/v1/strains", headers={"X-API-Key": f"wrong-{i}"}).status_code
        for i in range(61)
    ]
    assert statuses[:60] == [401] * 60
    assert statuses[60] == 429
    blocked = client.get("/api/v1/strains", headers={"X-API-Key": "wrong"})
    assert blocked.status_code == 429
    assert int(blocked.headers["Retry-After"]) > 0
    assert "failed API key attempts" in blocked.get_json()["error"]["message"]


def test_error_reference_page_needs_no_key(client: FlaskClient) -> None:
    response = client.get("/docs/errors")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for code in (400, 401, 404, 405, 429, 500):
        assert f'id="error-{code}"' in page


def _spend_failed_attempts(client: FlaskClient, address: str, **headers: str) -> int:
    """Send 61 bad keys from ``address``; the status of the last."""
    last = 0
    for i in range(61):
        last = client.get(
            "/api/v1/strains",
            headers={"X-API-Key": f"wrong-{i}", **headers},
            environ_base={"REMOTE_ADDR": address},
        ).status_code
    return last


def test_a_valid_key_is_served_from_an_address_whose_failed_attempts_are_spent(
    client: FlaskClient, api_keys: dict
) -> None:
    assert _spend_failed_attempts(client, "198.51.100.7") == 429
    # A valid key the worker has not seen yet (no cache hit) from the same address.
    for tier in ("free", "pro"):
        served = client.get(
            "/api/v1/laws/CA",
            headers={"X-API-Key": api_keys[tier]},
            environ_base={"REMOTE_ADDR": "198.51.100.7"},
        )
        assert served.status_code == 200
    still_blocked = client.get(
        "/api/v1/laws/CA",
        headers={"X-API-Key": "wrong"},
        environ_base={"REMOTE_ADDR": "198.51.100.7"},
    )
    assert still_blocked.status_code == 429
    assert int(still_blocked.headers["Retry-After"]) > 0
    missing = client.get("/api/v1/laws/CA", environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert missing.status_code == 429


def test_a_valid_key_is_served_on_graphql_from_a_throttled_address(
    client: FlaskClient, api_keys: dict
) -> None:
    assert _spend_failed_attempts(client, "198.51.100.8") == 429
    response = client.post(
        "/graphql",
        json={"query": '{ law(state: "CA") { stateCode } }'},
        headers={"X-API-Key": api_keys["enterprise"]},
        environ_base={"REMOTE_ADDR": "198.51.100.8"},
    )
    assert response.status_code == 200
    assert response.get_json()["data"] == {"law": {"stateCode": "CA"}}


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_a_bearer_token_is_accepted_as_the_key(
    client: FlaskClient, api_keys: dict, scheme: str
) -> None:
    response = client.get(
        "/api/v1/laws/CA", headers={"Authorization": f"{scheme} {api_keys['pro']}"}
    )
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Limit"] == "1000"


def test_x_api_key_wins_over_authorization_which_wins_over_the_parameter(
    client: FlaskClient, api_keys: dict
) -> None:
    def limit(headers: dict, api_key: str | None = None) -> str | int:
        query = {"api_key": api_key} if api_key else {}
        response = client.get("/api/v1/laws/CA", headers=headers, query_string=query)
        return response.headers.get("X-RateLimit-Limit") or response.status_code

    pro, free = f"Bearer {api_keys['pro']}", f"Bearer {api_keys['free']}"
    assert limit({"X-API-Key": api_keys["free"], "Authorization": pro}) == "100"
    assert limit({"X-API-Key": "garbage", "Authorization": pro}) == 401
    assert limit({"Authorization": pro}, api_key=api_keys["free"]) == "1000"
    assert limit({"Authorization": "Bearer garbage"}, api_key=api_keys["free"]) == 401
    assert limit({"Authorization": free}, api_key="garbage") == "100"


@pytest.mark.parametrize("authorization", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "Token x"])
def test_an_authorization_header_without_a_bearer_token_carries_no_key(
    client: FlaskClient, api_keys: dict, authorization: str
) -> None:
    missing = client.get("/api/v1/laws/CA", headers={"Authorization": authorization})
    assert missing.status_code == 401
    assert missing.get_json()["error"]["message"].startswith("API key missing")
    with_parameter = client.get(
        "/api/v1/laws/CA",
        headers={"Authorization": authorization},
        query_string={"api_key": api_keys["free"]},
    )
    assert with_parameter.status_code == 200


def test_a_bearer_token_works_on_graphql_and_browsers_may_send_it(
    client: FlaskClient, api_keys: dict
) -> None:
    answered = client.post(
        "/graphql",
        json={"query": '{ law(state: "CA") { state } }'},
        headers={"Authorization": f"Bearer {api_keys['free']}"},
    )
    assert answered.status_code == 200
    assert answered.get_json()["data"] == {"law": {"state": "California"}}
    preflight = client.options(
        "/api/v1/strains",
        headers={
            "Origin": "https://finder.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization",
        },
    )
    allowed = preflight.headers.get("Access-Control-Allow-Headers", "").lower()
    assert "authorization" in allowed
