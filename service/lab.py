"""The batch on the shelf: a menu item's lab result as both edges show it, built from the stored
MenuItem.lab (models.dispensary documents its layout) and the totals every load derives.

A result has a value in percent of dry weight, or no value and a qualifier saying why (not
detected, below the limit of quantitation); a missing measurement is never shown as a zero.
"""

from typing import Any, NamedTuple

from .compounds import COMPOUNDS, PERCENT, QUALIFIERS

# At most one result per compound: what the import accepts, and what GraphQL's cost analysis
# counts a batch's results as.
MAX_LAB_RESULTS = len(COMPOUNDS)


class LabResult(NamedTuple):
    key: str  # a service.compounds key
    value: float | None
    unit: str
    qualifier: str | None  # service.compounds.Qualifier's word when value is None, else None


class LabBatch(NamedTuple):
    batch_id: str
    tested_at: str  # ISO date, YYYY-MM-DD
    lab: str
    coa_url: str
    results: list[LabResult]
    total_thc: float | None  # by service.compounds.TOTAL_THC_FORMULA, one decimal
    total_cbd: float | None


def _result(stored: dict[str, Any]) -> LabResult:
    value = stored.get("value")
    qualifier = stored.get("qualifier") if value is None else None
    return LabResult(
        key=str(stored["key"]),
        value=None if value is None else float(value),
        unit=str(stored.get("unit") or PERCENT),
        qualifier=qualifier if qualifier in QUALIFIERS else None,
    )


def lab_batch(
    stored: dict[str, Any] | None, total_thc: float | None, total_cbd: float | None
) -> LabBatch | None:
    """The batch of a menu item's stored ``lab`` and derived totals; None without a batch."""
    if stored is None:
        return None
    results = stored.get("results") or []
    return LabBatch(
        batch_id=str(stored["batch_id"]),
        tested_at=str(stored["tested_at"]),
        lab=str(stored["lab"]),
        coa_url=str(stored["coa_url"]),
        results=[_result(result) for result in results[:MAX_LAB_RESULTS]],
        total_thc=total_thc,
        total_cbd=total_cbd,
    )
