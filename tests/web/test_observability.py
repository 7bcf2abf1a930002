"""Metrics by route template and one JSON log line per request, never with a key in it."""

import io
import json

import pytest

METRICS_TOKEN = "scrape-token-for-tests-0123"
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
    text = stream.getvalue().decode()
    assert key not in text
    assert key[9:-4] not in text


@pytest.mark.usefixtures("speed_tricks")
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
