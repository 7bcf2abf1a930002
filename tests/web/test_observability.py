"""Metrics by route template and one JSON log line per request, never with a key in it; /metrics
is served only to a scraper with the configured token, and its labels stay bounded."""

import io
import json
from datetime import UTC, datetime

import pytest
from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "metrics-token-0123456789abcdef"
SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def test_metrics_need_no_key_are_not_metered_and_group_by_route(make_app, api_keys: dict) -> None:
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    headers = {"X-API-Key": api_keys["pro"]}
    for slug in ("blue-dream", "acdc", "no-such-strain"):
        client.get(f"/api/v1/strains/{slug}", headers=headers)
    response = client.get("/metrics", headers=SCRAPE)
    assert response.status_code == 200
    assert "X-RateLimit-Limit" not in response.headers
    lines = [
        line
        for line in response.get_data(as_text=True).splitlines()
        if line.startswith("flask_http_request_duration_seconds_count")
        and "/api/v1/strains/<string:slug>" in line
    ]
    # One series per (method, status, route template): slugs never become label values.
    assert len(lines) == 2
    assert sum(float(line.rsplit(" ", 1)[1]) for line in lines) == 3.0
    assert "blue-dream" not in response.get_data(as_text=True)


def _log_lines(stream: io.BytesIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_each_request_logs_one_json_line_without_the_key(make_app, api_keys: dict) -> None:
    stream = io.BytesIO()
    client = make_app(ACCESS_LOG_STREAM=stream).test_client()
    key = api_keys["free"]
    response = client.get(f"/api/v1/laws/ny?api_key={key}", headers={"X-Request-ID": "abc-1"})
    records = _log_lines(stream)
    assert len(records) == 1
    record = records[0]
    assert response.status_code == 200
    assert {
        k: record[k] for k in ("event", "level", "request_id", "method", "route", "status")
    } == {
        "event": "request",
        "level": "info",
        "request_id": "abc-1",
        "method": "GET",
        "route": "/api/v1/laws/<string:state>",
        "status": 200,
    }
    assert isinstance(record["key_id"], int)
    assert record["duration_ms"] >= 0
    assert record["timestamp"].endswith("Z")
    stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 60
    # The line's fields in the order operators' parsers have always read them.
    assert list(record) == [
        "request_id",
        "method",
        "route",
        "status",
        "duration_ms",
        "key_id",
        "client",
        "event",
        "timestamp",
        "level",
    ]
    assert stream.getvalue().endswith(b"}\n")
    text = stream.getvalue().decode()
    assert key not in text
    assert key[9:-4] not in text


TOTAL = "flask_http_request_total"


def _comparable(response, path: str) -> tuple:
    """Status, headers (but the length) and body, with the requested path blanked out."""
    headers = sorted((k, v) for k, v in response.headers if k not in ("Content-Length",))
    body = response.get_data(as_text=True).replace(path, "<path>")
    return response.status_code, headers, body


def _totals(exposition: str) -> dict[tuple[str, str], float]:
    """flask_http_request_total by (method, status)."""
    return {
        (sample.labels["method"], sample.labels["status"]): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name == TOTAL
    }


@pytest.mark.parametrize("token", [None, METRICS_TOKEN])
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "OPTIONS", "DELETE"])
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-0123456789abcdef"},
        {"Authorization": f"Basic {METRICS_TOKEN}"},
        {"Authorization": METRICS_TOKEN},
        {"Authorization": f"Bearer {METRICS_TOKEN}x"},
        {"X-API-Key": METRICS_TOKEN},
    ],
)
def test_metrics_without_the_token_answer_exactly_as_an_unknown_path(
    make_app, token: str | None, method: str, headers: dict[str, str]
) -> None:
    client = make_app(METRICS_TOKEN=token).test_client()
    sent = {**headers, "X-Request-ID": "same-id", "Origin": "https://example.org"}
    metrics = client.open("/metrics", method=method, headers=sent)
    unknown = client.open("/no-such-page", method=method, headers=sent)
    assert metrics.status_code == 404
    assert _comparable(metrics, "/metrics") == _comparable(unknown, "/no-such-page")


def test_without_a_configured_token_even_the_right_bearer_gets_404(make_app) -> None:
    response = make_app().test_client().get("/metrics", headers=SCRAPE)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == 404


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_configured_token_as_a_bearer_is_served_the_exposition(make_app, scheme: str) -> None:
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    client.get("/no-such-page")
    response = client.get("/metrics", headers={"Authorization": f"{scheme} {METRICS_TOKEN}"})
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    assert _totals(response.get_data(as_text=True)) == {("GET", "404"): 1.0}


def test_refused_scrapes_are_counted_as_unknown_paths_and_granted_ones_not_at_all(
    make_app,
) -> None:
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    for _ in range(3):
        assert client.get("/metrics").status_code == 404
        assert client.get("/metrics", headers=SCRAPE).status_code == 200
    exposition = client.get("/metrics", headers=SCRAPE).get_data(as_text=True)
    assert _totals(exposition) == {("GET", "404"): 3.0}
    assert 'url_rule="/metrics"' not in exposition
    assert 'url_rule="unrouted"' in exposition


def test_made_up_methods_share_one_label_and_add_no_series(
    make_app, api_keys: dict[str, str]
) -> None:
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    key = {"X-API-Key": api_keys["enterprise"]}
    assert client.get("/api/v1/laws/CA", headers=key).status_code == 200
    assert client.open("/api/v1/laws/CA", method="X0METHOD").status_code == 401
    baseline = client.get("/metrics", headers=SCRAPE).get_data(as_text=True)
    statuses = {
        client.open("/api/v1/laws/CA", method=f"X{n}METHOD").status_code for n in range(1, 31)
    }
    after = client.get("/metrics", headers=SCRAPE).get_data(as_text=True)
    assert statuses == {401}  # anonymous: refused before routing, still counted
    # 30 more requests with 30 new method names: the same series, only their counts moved.
    assert _totals(after) == {("GET", "200"): 1.0, ("other", "401"): 31.0}
    assert len(after.splitlines()) == len(baseline.splitlines())
    assert "X1METHOD" not in after


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "TRACE"])
def test_standard_methods_keep_their_own_label(make_app, method: str) -> None:
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    client.open("/docs/errors", method=method)
    exposition = client.get("/metrics", headers=SCRAPE).get_data(as_text=True)
    assert set(_totals(exposition)) == {(method, "405")}
