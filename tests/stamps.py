"""Change stamps made to differ: loads stamp every row alike, so the stamp tests write their own.

``restamp(app)`` gives each served row of the app's database a stamp from ``BASE`` to ``BASE``
+ 10 ms picked by its key (many ties, so the key must break them), commits, and yields the
stamps written; the load's stamps are written back afterwards.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from sqlalchemy import select, update

from models import Deal, Dispensary, Doctor, Law, Strain
from web.db import SESSIONS_EXTENSION

BASE = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)
STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$")


def text(stamp: datetime) -> str:
    """A stamp as the API writes it (a naive one, as SQLite gives them back, is UTC)."""
    stamp = stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp
    return stamp.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms(count: int) -> timedelta:
    return timedelta(milliseconds=count)


@dataclass
class Stamps:
    """The stamps written, by public key: a strain's slug, disp_/deal_/doc_ ids, state codes."""

    strains: dict[str, datetime]
    dispensaries: dict[str, datetime]
    menus: dict[str, datetime]  # dispensaries' menu_updated_at
    deals: dict[str, datetime]
    doctors: dict[str, datetime]
    laws: dict[str, datetime]
    # Each kind's primary keys by public key (what breaks ties of the stamp order).
    keys: dict[str, dict[str, Any]]

    def since(self, kind: str, instant: datetime) -> set[str]:
        """The keys of ``kind`` stamped at or after ``instant``."""
        return {key for key, stamp in getattr(self, kind).items() if stamp >= instant}


# (model, key column, primary key column) of each kind.
_KINDS: dict[str, tuple[Any, Any, Any]] = {
    "strains": (Strain, Strain.slug, Strain.id),
    "dispensaries": (Dispensary, Dispensary.public_id, Dispensary.id),
    "deals": (Deal, Deal.public_id, Deal.id),
    "doctors": (Doctor, Doctor.public_id, Doctor.id),
    "laws": (Law, Law.state_code, Law.state_code),
}


def _spread(position: int) -> timedelta:
    """0 to 10 ms, scattered over the rows so that the stamp order is not the key order."""
    return ms((position * 7) % 11)


@contextmanager
def restamp(app: Flask) -> Iterator[Stamps]:
    written: dict[str, dict[str, datetime]] = {}
    keys: dict[str, dict[str, Any]] = {}
    saved: dict[str, list[tuple[Any, datetime, datetime | None]]] = {}
    with app.extensions[SESSIONS_EXTENSION]() as db:
        for kind, (model, key, pk) in _KINDS.items():
            menu = [model.menu_updated_at] if model is Dispensary else []
            found = db.execute(select(pk, key, model.updated_at, *menu).order_by(pk)).all()
            saved[kind] = [(row[0], row[2], row[3] if menu else None) for row in found]
            written[kind] = {}
            keys[kind] = {row[1]: row[0] for row in found}
            for position, row in enumerate(found):
                stamp = BASE + _spread(position)
                values: dict[str, Any] = {"updated_at": stamp}
                if menu:
                    values["menu_updated_at"] = BASE - ms(position % 5)
                    written.setdefault("menus", {})[row[1]] = values["menu_updated_at"]
                db.execute(update(model).where(pk == row[0]).values(**values))
                written[kind][row[1]] = stamp
        db.commit()
        try:
            yield Stamps(**written, keys=keys)
        finally:
            for kind, (model, _key, pk) in _KINDS.items():
                for pk_value, stamp, menu_stamp in saved[kind]:
                    values = {"updated_at": stamp}
                    if model is Dispensary:
                        values["menu_updated_at"] = menu_stamp
                    db.execute(update(model).where(pk == pk_value).values(**values))
            db.commit()
