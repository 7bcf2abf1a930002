"""Operator commands: ``flask seed``, ``flask data import`` and ``flask keys create|list|revoke``.

The commands receive the engine or session factory through small callables so that this package
needs neither Flask nor the app object.
"""

import time
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import click
from sqlalchemy import Connection, Engine, inspect, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from models import Strain
from service import keys
from service.errors import ServiceError
from service.vocab import KEY_TIERS

from .generate import DEFAULT_SEED, Dataset, generate
from .importing import ImportReport, build_dataset, read_directory, validate
from .importing.merge import MergeError, merge_dataset, stored_dataset, stored_ids
from .importing.reading import Issue
from .incremental import apply_merge
from .load import LoadResult, apply_dataset, load_dataset

SCALES = ("full", "tiny")
_T = TypeVar("_T")
REBUILD_COMMAND = ".venv/bin/flask --app app seed"


def database_is_empty(engine: Engine) -> bool:
    """True when the strains table is missing or has no rows."""
    if not inspect(engine).has_table(Strain.__tablename__):
        return True
    with engine.connect() as conn:
        return conn.scalar(select(Strain.id).limit(1)) is None


def make_seed_command(get_engine: Callable[[], Engine]) -> click.Command:
    """Return the ``seed`` command bound to the engine that ``get_engine`` yields."""

    @click.command("seed")
    @click.option("--scale", type=click.Choice(SCALES), default="full", show_default=True)
    @click.option("--seed", "seed_value", type=int, default=DEFAULT_SEED, show_default=True)
    @click.option(
        "--today",
        type=click.DateTime(formats=["%Y-%m-%d"]),
        default=None,
        help="Reference day for deal expiry dates (default: today).",
    )
    @click.option("--if-empty", is_flag=True, help="Do nothing when data is already loaded.")
    def seed_command(scale: str, seed_value: int, today: datetime | None, if_empty: bool) -> None:
        """(Re)create the schema and load the deterministic demo dataset."""
        engine = get_engine()
        if if_empty and not database_is_empty(engine):
            # Named in full: the quick start runs this for a user who never typed --if-empty.
            click.echo(f"The database already holds data; to rebuild it: {REBUILD_COMMAND}")
            return
        started = time.perf_counter()
        reference_day = today.date() if today else date.today()
        dataset = generate(scale=scale, seed=seed_value, today=reference_day)
        total = sum(len(rows) for rows in dataset.tables().values())
        with click.progressbar(length=total, label="Loading demo dataset") as bar:
            counts = load_dataset(engine, dataset, progress=lambda _table, n: bar.update(n))
        elapsed = time.perf_counter() - started
        click.echo(f"Seeded {engine.url.render_as_string(hide_password=True)} in {elapsed:.1f} s:")
        for table, count in counts.items():
            click.echo(f"  {table:<16} {count:>7,}")

    return seed_command


def _validate_import(
    path: Path, *, skip_invalid: bool, stored: dict[str, set[str]] | None = None
) -> ImportReport:
    """Read and check every file of ``path``; print each problem; fail unless importable.
    With ``stored`` (the stored public ids), the files are checked as a merge."""
    source = read_directory(path)
    with click.progressbar(length=source.record_count, label="Validating records") as bar:
        report = validate(source, progress=bar.update, stored=stored)
    issues = report.issues()
    for issue in issues:
        click.echo(str(issue), err=True)
    if report.problems:
        raise click.ClickException(
            f"{len(report.problems)} problem(s) with the files themselves; nothing was imported."
        )
    if issues and not skip_invalid:
        raise click.ClickException(
            f"{len(issues)} invalid record(s); nothing was imported. Fix them, or pass "
            "--skip-invalid to import the valid rest."
        )
    for file_name, skipped, total in report.skipped():
        click.echo(f"Skipped {skipped} of {total} records in {file_name}.")
    if report.bundled_laws:
        click.echo("No laws file: using the bundled law records.")
    return report


def _load_import(
    engine: Engine, dataset: Dataset | Callable[[Connection], Dataset], retention_days: int
) -> LoadResult:
    """Load ``dataset`` in one transaction; on failure the previous data stays in place."""
    retention = timedelta(days=retention_days)
    return _guarded(lambda: apply_dataset(engine, dataset, source="import", retention=retention))


def _merge_import(
    engine: Engine,
    path: Path,
    report: ImportReport,
    checked: dict[str, set[str]],
    retention_days: int,
) -> LoadResult:
    """Merge ``report`` writing only what changes (seed.incremental); where there is no change
    log yet, through the full path, which starts one."""
    retention = timedelta(days=retention_days)
    check = _ids_unchanged(path, checked)
    result = _guarded(lambda: apply_merge(engine, report, retention=retention, check=check))
    if result is not None:
        return result
    return _load_import(engine, _merger(path, report, checked), retention_days)


def _guarded(run: Callable[[], _T]) -> _T:
    """``run()``, with a merge's rule violations and database failures told as click errors
    (the load's transaction has rolled back)."""
    try:
        return run()
    except MergeError as exc:
        for issue in exc.issues:
            click.echo(str(issue), err=True)
        raise click.ClickException(
            f"{len(exc.issues)} problem(s) across records; nothing was imported."
        ) from exc
    except SQLAlchemyError as exc:
        raise click.ClickException(
            f"loading failed and was rolled back; the previous data is still served ({exc})"
        ) from exc


def _ids_unchanged(path: Path, checked: dict[str, set[str]]) -> Callable[[Connection], None]:
    """A check for the load's transaction: the files were checked against the ``checked`` ids
    before the load took its lock; if another import changed them meanwhile, the checks no
    longer hold and the merge is refused."""

    def check(conn: Connection) -> None:
        if stored_ids(conn) != checked:
            reason = (
                "another import changed the stored ids while these files were checked; "
                "run the merge again"
            )
            raise MergeError([Issue(str(path), None, reason)])

    return check


def _merger(
    path: Path, report: ImportReport, checked: dict[str, set[str]]
) -> Callable[[Connection], Dataset]:
    """The merge of ``report`` into the stored data, built in the load's transaction (after
    :func:`_ids_unchanged`)."""
    check = _ids_unchanged(path, checked)

    def merge(conn: Connection) -> Dataset:
        check(conn)
        return merge_dataset(stored_dataset(conn), report)

    return merge


OUTCOMES = ("inserted", "replaced", "deleted", "unchanged")
# Change log kinds, as the command names them.
RESOURCE_OF_KIND = {
    "law": "laws",
    "strain": "strains",
    "dispensary": "dispensaries",
    "deal": "deals",
    "doctor": "doctors",
}


def _echo_changes(result: LoadResult) -> None:
    """One line per resource: how many objects were inserted, replaced, deleted, unchanged."""
    click.echo(f"  {'':<14}" + "".join(f"{name:>11}" for name in OUTCOMES))
    for kind, resource in RESOURCE_OF_KIND.items():
        counts: Mapping[str, int] = result.changes.get(kind, {})
        click.echo(f"  {resource:<14}" + "".join(f"{counts.get(n, 0):>11,}" for n in OUTCOMES))


def make_data_group(
    get_engine: Callable[[], Engine], get_retention: Callable[[], int] = lambda: 30
) -> click.Group:
    """Return the ``data`` command group bound to the engine that ``get_engine`` yields and
    the change log retention in days that ``get_retention`` yields."""

    @click.group("data")
    def data_group() -> None:
        """Replace the demo dataset with your own data."""

    @data_group.command("import")
    @click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
    @click.option(
        "--skip-invalid",
        is_flag=True,
        help="Load the valid records, skipping invalid ones and the records that refer to them.",
    )
    @click.option(
        "--merge",
        is_flag=True,
        help="Insert or replace the objects in the files (and delete those in deletions.*), "
        "keeping every other object as stored.",
    )
    def import_command(path: Path, skip_invalid: bool, merge: bool) -> None:
        """Replace the dataset with the <resource>.jsonl / <resource>.csv files in PATH, or
        with --merge lay them over the stored data.

        Every record is checked first; any invalid record stops the import with nothing
        changed (unless --skip-invalid). Only objects that really change get a new stamp and
        a change feed entry. API keys are kept.
        """
        engine = get_engine()
        started = time.perf_counter()
        if merge:
            if database_is_empty(engine):
                raise click.ClickException("nothing is stored to merge into; import or seed first")
            with engine.connect() as conn:
                stored = stored_ids(conn)
            report = _validate_import(path, skip_invalid=skip_invalid, stored=stored)
            result = _merge_import(engine, path, report, stored, get_retention())
        else:
            report = _validate_import(path, skip_invalid=skip_invalid)
            result = _load_import(
                engine, build_dataset(report, today=date.today()), get_retention()
            )
        elapsed = time.perf_counter() - started
        where = engine.url.render_as_string(hide_password=True)
        verb = "Merged" if merge else "Imported"
        if result.changed:
            click.echo(
                f"{verb} {path} into {where} in {elapsed:.1f} s (data version {result.version}):"
            )
        else:
            click.echo(
                f"{verb} {path} into {where} in {elapsed:.1f} s: nothing changed "
                f"(data version {result.version} stays)."
            )
        _echo_changes(result)
        if result.counts:
            click.echo("Rows per table:")
        for table, count in result.counts.items():
            click.echo(f"  {table:<16} {count:>7,}")

    return data_group


def make_keys_group(get_sessions: Callable[[], sessionmaker[Session]]) -> click.Group:
    """Return the ``keys`` command group bound to the session factory ``get_sessions`` yields."""

    @click.group("keys")
    def keys_group() -> None:
        """Create, list and revoke API keys."""

    @keys_group.command("create")
    @click.option("--tier", type=click.Choice(KEY_TIERS), default="free", show_default=True)
    @click.option("--limit", type=int, default=None, help="Requests per hour (enterprise only).")
    @click.option("--name", default="", help="Who or what the key is for.")
    @click.option("--if-none", is_flag=True, help="Only create one when no active key exists.")
    def create(tier: str, limit: int | None, name: str, if_none: bool) -> str | None:
        """Create a key and print it once, alone on the last line (returned to a caller that
        invokes this command, None when ``--if-none`` found one)."""
        with get_sessions()() as session:
            if if_none and any(k.revoked_at is None for k in keys.list_keys(session)):
                click.echo(
                    "API keys already exist (list them: .venv/bin/flask --app app keys list). "
                    "Create another with:\n"
                    "  .venv/bin/flask --app app keys create --tier free --name NAME"
                )
                return None
            try:
                new = keys.create_key(session, tier=tier, name=name, hourly_limit=limit)
            except ServiceError as exc:
                raise click.UsageError(exc.message) from exc
            session.commit()
            click.echo(
                f"Created {tier} key #{new.record.id}. It is shown only now; store it safely:"
            )
            click.echo(new.plaintext)
            return new.plaintext

    @keys_group.command("list")
    def list_command() -> None:
        """List keys without secrets."""
        with get_sessions()() as session:
            for record in keys.list_keys(session):
                state = f"revoked {record.revoked_at:%Y-%m-%d}" if record.revoked_at else "active"
                limit = record.hourly_limit or "-"
                click.echo(
                    f"#{record.id}\t{record.tier}\t…{record.last4}\tlimit={limit}\t{state}\t"
                    f"{record.name}"
                )

    @keys_group.command("revoke")
    @click.argument("key_id", type=int)
    def revoke(key_id: int) -> None:
        """Revoke key KEY_ID (see ``keys list``); it stops working on the next request."""
        with get_sessions()() as session:
            try:
                keys.revoke_key(session, key_id)
            except ServiceError as exc:
                raise click.UsageError(exc.message) from exc
            session.commit()
            click.echo(f"Revoked key #{key_id}.")

    return keys_group
