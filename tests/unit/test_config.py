from pathlib import Path

import pytest

from service.config import ConfigError, Settings
from web.settings import WebSettings


def test_defaults_give_the_embedded_setup(tmp_path: Path) -> None:
    settings = Settings.from_env({}, instance_path=tmp_path)
    web = WebSettings.from_env({})
    assert settings.database_url == f"sqlite:///{tmp_path / 'cannabis.db'}"
    assert web.ratelimit_storage_uri == "memory://"
    assert web.log_level == "INFO"
    assert web.quota_lease_share == 1_000


def test_environment_values_override_defaults(tmp_path: Path) -> None:
    environ = {
        "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1/test",
        "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379/0",
        "LOG_LEVEL": "debug",
        "QUOTA_LEASE_SHARE": "0",
    }
    settings = Settings.from_env(environ, instance_path=tmp_path)
    web = WebSettings.from_env(environ)
    assert settings.database_url == "postgresql+psycopg://postgres@127.0.0.1/test"
    assert web.ratelimit_storage_uri == "redis://127.0.0.1:6379/0"
    assert web.log_level == "DEBUG"
    assert web.quota_lease_share == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DATABASE_URL", "mysql://root@localhost/db"),
        ("RATELIMIT_STORAGE_URI", "memcached://localhost"),
        ("LOG_LEVEL", "chatty"),
        ("QUOTA_LEASE_SHARE", "-1"),
        ("SPEED_TRICKS", "fast"),
        ("GRAPHQL_HEAVY_COST", "0"),
        ("HEAVY_PER_KEY", "one"),
        ("HEAVY_TOTAL", "-2"),
        ("WEB_CONCURRENCY", "0"),  # read for HEAVY_TOTAL's default
        ("GRAPHQL_PERSISTED_ENTRIES", "0"),
        ("GRAPHQL_PERSISTED_MAX_BYTES", "65537"),  # over the request body limit
        ("GRAPHQL_PERSISTED_MAX_AGE_S", "-1"),
    ],
)
def test_an_unusable_value_fails_naming_the_variable(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        _all_settings({name: value}, tmp_path)


def _all_settings(environ: dict[str, str], instance_path: Path) -> None:
    Settings.from_env(environ, instance_path=instance_path)
    WebSettings.from_env(environ)


def test_blank_values_fall_back_to_defaults(tmp_path: Path) -> None:
    environ = {"DATABASE_URL": "  ", "RATELIMIT_STORAGE_URI": ""}
    settings = Settings.from_env(environ, instance_path=tmp_path)
    assert settings.database_url.startswith("sqlite:///")
    assert WebSettings.from_env(environ).ratelimit_storage_uri == "memory://"


@pytest.mark.parametrize(("value", "expected"), [("", True), ("on", True), (" OFF ", False)])
def test_speed_tricks_are_on_unless_switched_off(value: str, expected: bool) -> None:
    assert WebSettings.from_env({"SPEED_TRICKS": value}).speed_tricks is expected


def test_heavy_work_defaults_to_one_per_key_and_half_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert WebSettings.from_env({"WEB_CONCURRENCY": "4"}).heavy_total == 2
    assert WebSettings.from_env({"WEB_CONCURRENCY": "1"}).heavy_total == 1
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    web = WebSettings.from_env({})
    assert (web.graphql_heavy_cost, web.heavy_per_key, web.heavy_total) == (20_000, 1, 3)


def test_heavy_work_bounds_come_from_the_environment() -> None:
    environ = {
        "GRAPHQL_HEAVY_COST": "8000",
        "HEAVY_PER_KEY": "2",
        "HEAVY_TOTAL": "3",
        "WEB_CONCURRENCY": "16",
    }
    web = WebSettings.from_env(environ)
    assert (web.graphql_heavy_cost, web.heavy_per_key, web.heavy_total) == (8_000, 2, 3)


def test_persisted_query_settings_come_from_the_environment() -> None:
    default = WebSettings.from_env({})
    assert (
        default.graphql_persisted_entries,
        default.graphql_persisted_max_bytes,
        default.graphql_persisted_max_age_s,
    ) == (1_000, 16_384, 60)
    web = WebSettings.from_env(
        {
            "GRAPHQL_PERSISTED_ENTRIES": "50",
            "GRAPHQL_PERSISTED_MAX_BYTES": "65536",
            "GRAPHQL_PERSISTED_MAX_AGE_S": "0",
        }
    )
    assert (
        web.graphql_persisted_entries,
        web.graphql_persisted_max_bytes,
        web.graphql_persisted_max_age_s,
    ) == (50, 65_536, 0)
