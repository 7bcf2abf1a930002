"""web.accel.cors: the CORS headers remembered per (route, Origin) are the ones flask-cors sends."""

import pytest

REST_PATHS = [
    "/api/v1/strains",
    "/api/v1/strains/blue-dream",
    "/api/v1/dispensaries",
    "/api/v1/dispensaries/disp_1001",
    "/api/v1/deals",
    "/api/v1/doctors",
    "/api/v1/laws/CA",
    "/api/v1/search",
]


def _cors_headers(response) -> list[tuple[str, str]]:
    return [
        (name, value)
        for name, value in response.headers
        if name.startswith("Access-Control-") or name == "Vary"
    ]


@pytest.mark.parametrize("origins", ["*", ["https://ok.example", "https://also.example"]])
def test_remembered_cors_headers_are_the_ones_flask_cors_sends(
    make_app, api_keys: dict, monkeypatch: pytest.MonkeyPatch, origins
) -> None:
    remembering = make_app(CORS_ORIGINS=origins, PAGE_CACHE_MB=0)
    monkeypatch.setattr("web.pipeline.remember_cors_headers", lambda app: None)
    plain = make_app(CORS_ORIGINS=origins, PAGE_CACHE_MB=0)
    key = {"X-API-Key": api_keys["enterprise"]}
    requests = [
        (method, path, {**key, **({"Origin": origin} if origin else {})})
        for method in ("GET", "HEAD")
        for path in [*REST_PATHS, "/api/v1/strains?type=indica", "/health", "/nowhere"]
        for origin in (None, "https://ok.example", "https://no.example", "https://ok.example")
    ]
    requests += [("POST", "/graphql", {**key, "Origin": "https://ok.example"})] * 2
    seen = set()
    for method, path, headers in requests:
        body = {"query": "{ laws { stateCode } }"} if method == "POST" else None
        expected = plain.test_client().open(path, method=method, headers=headers, json=body)
        found = remembering.test_client().open(path, method=method, headers=headers, json=body)
        assert _cors_headers(found) == _cors_headers(expected), (method, path, headers)
        seen.add(tuple(_cors_headers(expected)))
    assert len(seen) >= 2  # with and without an allowed origin, at least
