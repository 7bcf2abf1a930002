"""Metrics by route template and one JSON log line per request, never with a key in it."""

import json
import logging

from flask.testing import FlaskClient

from rest.observability import ACCESS_LOGGER


def test_metrics_need_no_key_are_not_metered_and_group_by_route(
    client: FlaskClient, api_keys: dict
) -> None:
    headers = {"X-API-Key": api_keys["pro"]}
    for slug in ("blue-dream", "acdc", "no-such-strain"):
        client.get(f"/api/v1/strains/{slug}", headers=headers)
    response = client.get("/metrics")
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


def test_each_request_logs_one_json_line_without_the_key(
    client: FlaskClient, api_keys: dict, caplog
) -> None:
    key = api_keys["free"]
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        response = client.get(f"/api/v1/laws/ny?api_key={key}", headers={"X-Request-ID": "abc-1"})
    records = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    assert len(records) == 1
    record = records[0]
    assert response.status_code == 200
    assert {k: record[k] for k in ("event", "request_id", "method", "route", "status")} == {
        "event": "request",
        "request_id": "abc-1",
        "method": "GET",
        "route": "/api/v1/laws/<string:state>",
        "status": 200,
    }
    assert isinstance(record["key_id"], int)
    assert record["duration_ms"] >= 0
    assert key not in caplog.text
    assert key[9:-4] not in caplog.text
