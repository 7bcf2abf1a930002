"""X-Request-ID on every response: the client's own when it is safe, else a fresh one."""

from flask.testing import FlaskClient


def test_request_id_is_generated_and_echoed(client: FlaskClient, api) -> None:
    generated = api.get("/api/v1/laws/CA")
    assert len(generated.headers["X-Request-ID"]) == 32
    echoed = client.get("/api/v1/laws/CA", headers={"X-Request-ID": "trace-123"})
    assert echoed.status_code == 401
    assert echoed.headers["X-Request-ID"] == "trace-123"


def test_unsafe_request_ids_are_replaced(client: FlaskClient) -> None:
    response = client.get("/docs/errors", headers={"X-Request-ID": "bad id\twith spaces"})
    assert response.headers["X-Request-ID"] != "bad id\twith spaces"
    assert len(response.headers["X-Request-ID"]) == 32
