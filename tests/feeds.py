"""Helpers for the change feed tests: a database of its own per test (loads change it), the ids a
dataset serves, a dataset with a few objects changed, and reading a feed to its end."""

import copy
from collections.abc import Callable
from datetime import date

from sqlalchemy import Engine, text

from models.db import make_engine
from seed import Dataset, generate, load_dataset
from service.changes import ChangePage, ChangeQuery, list_changes

FEED_SEED = 7
RETENTION_DAYS = 30

Key = tuple[str, str]  # (kind, public id)


def tiny_dataset() -> Dataset:
    """The tiny dataset (seed 7) as of today, so its deals are live."""
    return generate(scale="tiny", seed=FEED_SEED, today=date.today())


def seeded_engine(url: str, dataset: Dataset) -> Engine:
    """An engine on ``url`` with ``dataset`` loaded (the first load starts the log)."""
    engine = make_engine(url)
    load_dataset(engine, dataset)
    return engine


def served_ids(dataset: Dataset) -> set[Key]:
    """Every object ``dataset`` serves, as the feed names them."""
    return (
        {("law", row["state_code"]) for row in dataset.laws}
        | {("strain", row["slug"]) for row in dataset.strains}
        | {("dispensary", row["public_id"]) for row in dataset.dispensaries}
        | {("deal", row["public_id"]) for row in dataset.deals}
        | {("doctor", row["public_id"]) for row in dataset.doctors}
    )


def with_changes(dataset: Dataset) -> tuple[Dataset, set[Key], set[Key]]:
    """``dataset`` with its first strain renamed, its second doctor's fee raised and its last
    deal gone: (the new dataset, the ids upserted, the ids deleted)."""
    changed = copy.deepcopy(dataset)
    strain = changed.strains[0]
    strain["description"] = strain["description"] + " Now with a longer finish."
    doctor = changed.doctors[1]
    doctor["price"] = doctor["price"] + 25
    gone = changed.deals.pop()
    upserted = {("strain", strain["slug"]), ("doctor", doctor["public_id"])}
    return changed, upserted, {("deal", gone["public_id"])}


def read_to_end(
    read: Callable[[str | None], ChangePage], since: str | None = None
) -> tuple[list[ChangePage], str]:
    """Follow ``next`` from ``since`` until a page has no more: (the pages, the last next)."""
    pages = []
    while True:
        page = read(since)
        pages.append(page)
        since = page.next
        if not page.has_more:
            return pages, since


def service_reader(engine: Engine, **query: object) -> Callable[[str | None], ChangePage]:
    """Reads one page through service.changes on a fresh connection, with ``query``'s
    types and limit."""

    def read(since: str | None) -> ChangePage:
        with engine.connect() as conn:
            built = ChangeQuery.create(since=since, **query)  # type: ignore[arg-type]
            return list_changes(conn, built, retention_days=RETENTION_DAYS)

    return read


def set_feed_state(engine: Engine, **values: object) -> None:
    """Overwrite columns of the feed's state row (epoch, horizon) as a load would."""
    assignments = ", ".join(f"{name} = :{name}" for name in values)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE feed_state SET {assignments}"), values)
