"""The client address behind proxies: X-Forwarded-For counts only from configured hops."""

import io
from collections.abc import Callable

import orjson
import pytest
from flask import Flask

from web.limits import LIMITER_EXTENSION, address_bucket


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


def test_made_up_forwarded_values_count_against_the_peer_address(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(TRUSTED_PROXY_HOPS=1)
    # A value that is no IP address cannot open a new bucket per request.
    statuses = _failed_statuses(app, "192.0.2.10", [f"client-{i}" for i in range(61)])
    assert statuses[:60] == [401] * 60
    assert statuses[60] == 429
    # The peer itself is now throttled, whatever it forwards.
    assert _failed_statuses(app, "192.0.2.10", ["2001:db8::8"]) == [401]
    assert _failed_statuses(app, "192.0.2.10", ["still made up"]) == [429]


@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:0db8:0:0::7", "2001:db8::7"),  # one address, one spelling
        ("::ffff:203.0.113.9", "203.0.113.9"),  # IPv4 as a dual-stack socket spells it
        ("made-up", "10.0.0.2"),
        ("203.0.113.9:5678", "10.0.0.2"),  # a port is no part of an address
        ("fe80::1%eth0", "10.0.0.2"),  # a zone names an interface of the proxy, not a client
        ("x" * 6000, "10.0.0.2"),
    ],
)
def test_the_access_log_shows_the_forwarded_address_only_when_it_is_one(
    make_app: Callable[..., Flask], forwarded: str, client: str
) -> None:
    stream = io.BytesIO()
    app = make_app(TRUSTED_PROXY_HOPS=1, ACCESS_LOG_STREAM=stream)
    app.test_client().get(
        "/api/v1/laws/CA",
        headers={"X-API-Key": "wrong", "X-Forwarded-For": forwarded},
        environ_base={"REMOTE_ADDR": "10.0.0.2"},
    )
    [line] = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    assert (line["client"], line["status"]) == (client, 401)


@pytest.mark.parametrize(
    ("hops", "forwarded", "peer"),
    [(1, "x" * 6000, "10.0.0.2"), (0, "", "p" * 6000)],
    ids=["forwarded", "peer"],
)
def test_a_6_kb_address_leaves_only_short_keys_in_the_limiter_storage(
    make_app: Callable[..., Flask], hops: int, forwarded: str, peer: str
) -> None:
    app = make_app(TRUSTED_PROXY_HOPS=hops)
    assert _failed_statuses(app, peer, [forwarded] * 2) == [401, 401]
    storage = app.extensions[LIMITER_EXTENSION].storage
    stored = [*storage.storage, *storage.expirations, *storage.events]
    assert stored, "the failed attempts were not counted"
    assert max(len(key) for key in stored) < 120


def test_address_buckets_keep_addresses_and_hash_anything_longer() -> None:
    assert address_bucket("2001:db8::7") == "2001:db8::7"
    assert address_bucket("ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255").startswith("ffff")
    long_ones = {address_bucket("p" * 6000), address_bucket("p" * 5999 + "q")}
    assert len(long_ones) == 2
    assert {len(bucket) for bucket in long_ones} == {len("sha256:") + 32}
