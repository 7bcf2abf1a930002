"""Alembic environment: the target is models.Base.metadata, the URL comes from DATABASE_URL."""

from logging.config import fileConfig
from pathlib import Path

from alembic import context
from sqlalchemy import engine_from_config, pool

from models import Base
from models.search.structures import include_in_autogenerate
from service.config import Settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name)

target_metadata = Base.metadata
INSTANCE = Path(__file__).resolve().parents[1] / "instance"


def _url() -> str:
    # An explicit URL (tests) wins; otherwise the same setting the app reads.
    return (
        config.get_main_option("sqlalchemy.url")
        or Settings.from_env(instance_path=INSTANCE).database_url
    )


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        include_name=include_in_autogenerate,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = engine_from_config(
        {"sqlalchemy.url": _url()}, prefix="sqlalchemy.", poolclass=pool.NullPool
    )
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            # The search structures (FTS5 tables, trigram indexes) live in models.search.structures.
            include_name=include_in_autogenerate,
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
