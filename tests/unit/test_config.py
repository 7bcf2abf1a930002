from pathlib import Path

import pytest

from service.config import ConfigError, Settings


def test_defaults_give_the_embedded_setup(tmp_path: Path) -> None:
    settings = Settings.from_env({}, instance_path=tmp_path)
    assert settings.database_url == f"sqlite:///{tmp_path / 'cannabis.db'}"
    assert settings.ratelimit_storage_uri == "memory://"
    assert settings.log_level == "INFO"
    assert settings.quota_lease_share == 1_000


def test_environment_values_override_defaults(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1/test",
            "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379/0",
            "LOG_LEVEL": "debug",
            "QUOTA_LEASE_SHARE": "0",
        },
        instance_path=tmp_path,
    )
    assert settings.database_url == "postgresql+psycopg://postgres@127.0.0.1/test"
    assert settings.ratelimit_storage_uri == "redis://127.0.0.1:6379/0"
    assert settings.log_level == "DEBUG"
    assert settings.quota_lease_share == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DATABASE_URL", "mysql://root@localhost/db"),
        ("RATELIMIT_STORAGE_URI", "memcached://localhost"),
        ("LOG_LEVEL", "chatty"),
        ("QUOTA_LEASE_SHARE", "-1"),
    ],
)
def test_an_unusable_value_fails_naming_the_variable(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value}, instance_path=tmp_path)


def test_blank_values_fall_back_to_defaults(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"DATABASE_URL": "  ", "RATELIMIT_STORAGE_URI": ""}, instance_path=tmp_path
    )
    assert settings.database_url.startswith("sqlite:///")
    assert settings.ratelimit_storage_uri == "memory://"
