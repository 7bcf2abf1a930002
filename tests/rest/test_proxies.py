"""The client address behind proxies: X-Forwarded-For counts only from configured hops."""

import io
from collections.abc import Callable

import orjson
from flask import Flask


def _failed_statuses(app: Flask, peer: str, forwarded: list[str]) -> list[int]:
    """Bad-key statuses for requests from ``peer`` carrying each X-Forwarded-For in turn."""
    client = app.test_client()
    return [
        client.get(
            "/api/v1/strains",
            headers={"X-API-Key": "wrong", "X-Forwarded-For": value},
            environ_base={"REMOTE_ADDR": peer},
        ).status_code
        for value in forwarded
    ]


def test_forwarded_for_is_ignored_by_default(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    # A client cannot escape the throttle by inventing a new address per request.
    spoofed = [f"203.0.113.{i}" for i in range(61)]
    statuses = _failed_statuses(app, "192.0.2.10", spoofed)
    assert statuses[:60] == [401] * 60
    assert statuses[60] == 429


def test_with_one_trusted_hop_each_client_behind_the_proxy_has_its_own_count(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(TRUSTED_PROXY_HOPS=1)
    proxy = "10.0.0.2"
    assert _failed_statuses(app, proxy, ["203.0.113.5"] * 61)[-1] == 429
    # Another customer behind the same proxy is not locked out by the first one.
    assert _failed_statuses(app, proxy, ["203.0.113.6"]) == [401]
    # A client may prepend anything; the proxy appends the address it saw, and that one counts.
    assert _failed_statuses(app, proxy, ["203.0.113.6, 203.0.113.5"]) == [429]
    assert _failed_statuses(app, proxy, ["203.0.113.5, 203.0.113.6"]) == [401]


def test_the_access_log_shows_the_resolved_client_address(
    make_app: Callable[..., Flask], api_keys: dict
) -> None:
    stream = io.BytesIO()
    app = make_app(TRUSTED_PROXY_HOPS=1, ACCESS_LOG_STREAM=stream)
    client = app.test_client()
    for _ in range(2):  # the second is answered by the replay lane in front of Flask
        client.get(
            "/api/v1/laws/CA",
            headers={"X-API-Key": api_keys["pro"], "X-Forwarded-For": "1.2.3.4, 203.0.113.9"},
            environ_base={"REMOTE_ADDR": "10.0.0.2"},
        )
    lines = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["client"], line["status"]) for line in lines] == [("203.0.113.9", 200)] * 2
