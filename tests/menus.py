"""Test data picked from the menus themselves."""

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import MenuItem, Strain


def most_listed_strain(session: Session) -> Strain:
    """The strain on the most dispensaries' menus (the lowest id among equals)."""
    strain_id = session.scalar(
        select(MenuItem.strain_id)
        .where(MenuItem.strain_id.is_not(None))
        .group_by(MenuItem.strain_id)
        .order_by(func.count(func.distinct(MenuItem.dispensary_id)).desc(), MenuItem.strain_id)
    )
    return session.get_one(Strain, strain_id)


def shown_lab(item: MenuItem) -> dict[str, Any] | None:
    """The ``lab`` object a menu item shows, written from its stored row: the batch's fields,
    its results (a qualifier only where there is no value, unit percent when not stored) and
    the derived totals; None without a batch."""
    if item.lab is None:
        return None
    results = []
    for result in item.lab["results"]:
        shown = {"key": result["key"], "value": result["value"]}
        shown["unit"] = result.get("unit") or "percent"
        if result["value"] is None:
            shown["qualifier"] = result["qualifier"]
        results.append(shown)
    fields = ("batch_id", "tested_at", "lab", "coa_url")
    return {
        **{name: item.lab[name] for name in fields},
        "results": results,
        "total_thc": item.total_thc,
        "total_cbd": item.total_cbd,
    }
