"""The operator CLI: seed and keys commands, driven through Flask's CLI runner."""

import re
from pathlib import Path

import click
import pytest
from flask import Flask
from sqlalchemy import func, select

from app import create_app, dispose_engines
from models import ApiKey, DatasetInfo, Deal, Strain
from service import keys
from web.quickstart import make_quickstart_command


@pytest.fixture
def fresh_app(tmp_path: Path) -> Flask:
    """An app on an empty SQLite file of its own."""
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"})
    yield app
    dispose_engines(app)


def _scalar(app: Flask, stmt):
    with app.extensions["cds.sessions"]() as db:
        return db.scalar(stmt)


def _seed(app: Flask, *args: str):
    return app.test_cli_runner().invoke(
        args=["seed", "--scale", "tiny", "--today", "2026-03-01", *args]
    )


def test_seed_loads_the_dataset_and_prints_counts(fresh_app: Flask) -> None:
    result = _seed(fresh_app)
    assert result.exit_code == 0, result.output
    assert re.search(r"strains\s+150\n", result.output)
    assert re.search(r"laws\s+56\n", result.output)
    assert _scalar(fresh_app, select(func.count()).select_from(Strain)) == 150
    info = _scalar(fresh_app, select(DatasetInfo))
    assert (info.version, info.source, str(info.reference_day)) == (1, "demo-seed", "2026-03-01")


def test_seed_if_empty_leaves_existing_data_alone(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    result = _seed(fresh_app, "--if-empty")
    assert result.exit_code == 0
    assert "already holds data" in result.output
    # The command that rebuilds, not the flag: the quick start passes it for the user.
    assert "to rebuild it: .venv/bin/flask --app app seed\n" in result.output
    assert "--if-empty" not in result.output
    assert _scalar(fresh_app, select(func.max(DatasetInfo.version))) == 1


def test_reseeding_bumps_the_version_and_keeps_api_keys(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    created = fresh_app.test_cli_runner().invoke(args=["keys", "create", "--tier", "pro"])
    plaintext = created.output.strip().splitlines()[-1]
    assert _seed(fresh_app, "--seed", "99").exit_code == 0
    assert _scalar(fresh_app, select(func.max(DatasetInfo.version))) == 2
    with fresh_app.extensions["cds.sessions"]() as db:
        assert keys.authenticate(db, plaintext).tier == "pro"


def test_seed_day_sets_deal_expiry_dates(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    earliest = _scalar(fresh_app, select(func.min(Deal.expires)))
    latest = _scalar(fresh_app, select(func.max(Deal.expires)))
    assert "2026-01-30" <= str(earliest) < "2026-03-01" < str(latest) <= "2026-04-30"


def test_keys_create_prints_the_key_alone_on_the_last_line(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    result = fresh_app.test_cli_runner().invoke(
        args=["keys", "create", "--tier", "enterprise", "--limit", "20000", "--name", "Acme"]
    )
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert keys.is_well_formed(last)
    stored = _scalar(fresh_app, select(ApiKey).where(ApiKey.key_hash == keys.hash_key(last)))
    assert (stored.tier, stored.hourly_limit, stored.name) == ("enterprise", 20000, "Acme")


def test_keys_create_rejects_a_limit_on_a_free_key(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    result = fresh_app.test_cli_runner().invoke(
        args=["keys", "create", "--tier", "free", "--limit", "5"]
    )
    assert result.exit_code == 2
    assert "enterprise keys only" in result.output


def test_keys_create_if_none_creates_only_the_first_key(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    runner = fresh_app.test_cli_runner()
    first = runner.invoke(args=["keys", "create", "--if-none", "--name", "local demo"])
    assert keys.is_well_formed(first.output.strip().splitlines()[-1])
    second = runner.invoke(args=["keys", "create", "--if-none"])
    assert "already exist" in second.output
    assert _scalar(fresh_app, select(func.count()).select_from(ApiKey)) == 1


def test_keys_list_shows_no_secret_and_revoke_disables(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0
    runner = fresh_app.test_cli_runner()
    plaintext = runner.invoke(args=["keys", "create", "--name", "ci"]).output.split()[-1]
    listing = runner.invoke(args=["keys", "list"]).output
    assert plaintext not in listing
    assert plaintext[9:-4] not in listing
    assert re.search(rf"#1\tfree\t…{plaintext[-4:]}\tlimit=-\tactive\tci", listing)
    assert runner.invoke(args=["keys", "revoke", "1"]).exit_code == 0
    assert "revoked" in runner.invoke(args=["keys", "list"]).output
    assert runner.invoke(args=["keys", "revoke", "42"]).exit_code == 2


def _quickstart(app: Flask, served: list[int]) -> object:
    """``flask quickstart`` with a stand-in for the server, which only notes the port."""

    @click.command("serve")
    @click.option("--host")
    @click.option("--port", type=int)
    def serve(host: str, port: int) -> None:
        served.append(port)

    create = app.cli.commands["keys"].commands["create"]
    command = make_quickstart_command(app.cli.commands["seed"], create, serve)
    return app.test_cli_runner().invoke(command, ["--port", "5999"])


def test_quickstart_creates_a_pro_demo_key_and_says_so(fresh_app: Flask) -> None:
    assert _seed(fresh_app).exit_code == 0  # seeded: the quick start leaves the data alone
    served: list[int] = []
    first = _quickstart(fresh_app, served)
    assert first.exit_code == 0, first.output
    key = re.search(r"cds_live_\w{32}", first.output)
    assert key is not None
    with fresh_app.extensions["cds.sessions"]() as db:
        assert keys.authenticate(db, key.group()).tier == "pro"
    assert "The demo key is pro tier: 1,000 requests an hour" in first.output
    assert "to rebuild it: .venv/bin/flask --app app seed" in first.output
    assert served == [5999]
    again = _quickstart(fresh_app, served)
    assert "pro tier" not in again.output  # no new key: nothing to say about it
    assert "'X-API-Key: YOUR_KEY'" in again.output
