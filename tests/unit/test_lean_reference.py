"""bench/lean.py, the benchmark's lean reference app, answers the benchmark's URLs with the
service's bytes: every law by state code, the strains-list case of bench/run.py and every
distinct strains list of bench/traffic.py's trace, on the shared tiny dataset. Its own platform
(ETag and 304, quota headers, keys) is checked too. Its quota needs Redis: a throwaway
redis-server, the test skipped, saying why, when there is none."""

import contextlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from models import Law
from tests.servers import redis_server

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str, file: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def lean(tiny_db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """bench/lean.py loaded on the shared dataset, its quotas in a throwaway Redis."""
    with contextlib.ExitStack() as started:
        try:
            redis = started.enter_context(redis_server("the lean app counts its quota there"))
        except RuntimeError as error:
            pytest.skip(f"redis-server could not start: {error}")
        log = tmp_path_factory.mktemp("lean") / "access.log"
        with pytest.MonkeyPatch.context() as env:
            env.setenv("DATABASE_URL", tiny_db_url)
            env.setenv("RATELIMIT_STORAGE_URI", redis.url)
            env.setenv("LEAN_ACCESS_LOG", str(log))
            env.setenv("CORS_ORIGINS", "*")
            module = _load("bench_lean", "lean.py")
        yield module
        module.ENGINE.dispose()
        module.QUOTAS.close()
        module.LOG.close()


def _urls(engine: Engine) -> list[str]:
    """The benchmark's URLs the lean app serves, each once."""
    run = _load("bench_run_for_lean", "run.py")
    traffic = _load("bench_traffic_for_lean", "traffic.py")
    with engine.connect() as db:
        states = list(db.scalars(select(Law.state_code).order_by(Law.state_code)))
    cases = [path for name, path, _ in run.CASES if name in run.LEAN_CASES]
    trace = traffic.build_trace(engine, new_features=True)
    listed = [request.path for request in run.strains_lists(trace)]
    return list(dict.fromkeys([*(f"/api/v1/laws/{code}" for code in states), *cases, *listed]))


def _differing(service: FlaskClient, lean: FlaskClient, urls: list[str], key: str) -> list[str]:
    """The URLs whose status or body differs between the two apps (the service's must be 200)."""
    differing = []
    for url in urls:
        theirs = service.get(url, headers={"X-API-Key": key})
        ours = lean.get(url, headers={"X-API-Key": key})
        assert theirs.status_code == 200, (url, theirs.get_data()[:200])
        if (ours.status_code, ours.get_data()) != (theirs.status_code, theirs.get_data()):
            differing.append(url)
    return differing


def test_the_lean_app_answers_the_benchmarks_urls_with_the_services_bytes(
    lean: ModuleType, make_app, api_keys: dict[str, str], engine: Engine
) -> None:
    urls = _urls(engine)
    # Every jurisdiction's law, the two cases and the trace's lists (about 160 on this data).
    assert sum("/laws/" in url for url in urls) == 56
    assert sum("/strains?" in url for url in urls) > 100
    service, reference = make_app().test_client(), lean.app.test_client()
    differing = _differing(service, reference, urls, api_keys["enterprise"])
    assert differing == [], f"{len(differing)} of {len(urls)} URLs differ, such as {differing[:3]}"


def test_a_changed_byte_is_told_apart(
    lean: ModuleType, make_app, api_keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One law's state name with a dot more: the comparison above names that URL.
    def envelope(record: Any) -> dict[str, Any]:
        return {"success": True, "data": {**record._asdict(), "state": record.state + "."}}

    monkeypatch.setattr(lean, "ok", envelope)
    urls = ["/api/v1/laws/CA", "/api/v1/strains?limit=5"]
    service, reference = make_app().test_client(), lean.app.test_client()
    assert _differing(service, reference, urls, api_keys["enterprise"]) == urls[:1]


def test_the_lean_app_does_the_platform_essentials(
    lean: ModuleType, api_keys: dict[str, str]
) -> None:
    client = lean.app.test_client()
    url = "/api/v1/strains?type=hybrid&effect=relaxed&thc_min=18"
    key = {"X-API-Key": api_keys["enterprise"]}
    first = client.get(url, headers={**key, "Origin": "https://example.com"})
    assert first.status_code == 200
    assert first.headers["X-RateLimit-Limit"] == "5000"
    assert int(first.headers["X-RateLimit-Remaining"]) < 5000
    assert int(first.headers["X-RateLimit-Reset"]) % 3600 == 0
    assert first.headers["Access-Control-Allow-Origin"] == "*"
    assert len(first.headers["X-Request-ID"]) == 32
    again = client.get(url, headers={**key, "If-None-Match": first.headers["ETag"]})
    assert (again.status_code, again.get_data()) == (304, b"")
    assert again.headers["ETag"] == first.headers["ETag"]
    echoed = client.get(url, headers={**key, "X-Request-ID": "abc-1"})
    assert echoed.headers["X-Request-ID"] == "abc-1"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"X-API-Key": "cds_live_" + "x" * 32}).status_code == 401
    assert client.get("/api/v1/strains?thc_min=nan", headers=key).status_code == 400
    assert client.get("/api/v1/strains?colour=green", headers=key).status_code == 400
    assert client.get("/api/v1/laws/ZZ", headers=key).status_code == 404
    assert lean.ROUTES["/api/v1/strains"][0] >= 4
    lean.LOG.flush()
    assert b'"route":"/api/v1/laws/<state>"' in Path(lean.LOG.name).read_bytes()
