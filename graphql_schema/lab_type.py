"""The batch on the shelf in GraphQL: a menu item's lab result (MenuItem.lab, and Dispensary.lab
under Strain.dispensaries), built from the service's LabBatch."""

from datetime import date

import strawberry

from service.compounds import TOTAL_CBD_FORMULA, TOTAL_THC_FORMULA, Qualifier
from service.lab import LabBatch as LabBatchRow

strawberry.enum(Qualifier, name="LabQualifier", description="Why a lab result has no value.")


@strawberry.type(description="One compound's result: a value, or null and a qualifier.")
class LabResult:
    key: str = strawberry.field(description="A compound key (Query.compounds).")
    value: float | None = strawberry.field(
        description="Percent of dry weight; null when not quantified (see qualifier)."
    )
    unit: str = strawberry.field(description="Always percent (of dry weight).")
    qualifier: Qualifier | None = strawberry.field(
        description="Why there is no value (ND: not detected, LT_LOQ: below the limit of "
        "quantitation); null when there is a value."
    )


@strawberry.type(description="The lab result of the batch on the shelf.")
class LabBatch:
    batch_id: str
    tested_at: date
    lab: str = strawberry.field(description="The testing laboratory.")
    coa_url: str = strawberry.field(description="The certificate of analysis.")
    results: list[LabResult] = strawberry.field(description="At most one per compound.")
    total_thc: float | None = strawberry.field(
        description=f"{TOTAL_THC_FORMULA} over the results (a missing or unquantified one "
        "counts 0), one decimal."
    )
    total_cbd: float | None = strawberry.field(
        description=f"{TOTAL_CBD_FORMULA} over the results, one decimal."
    )

    @classmethod
    def of(cls, batch: LabBatchRow | None) -> "LabBatch | None":
        if batch is None:
            return None
        return cls(
            batch_id=batch.batch_id,
            tested_at=date.fromisoformat(batch.tested_at),
            lab=batch.lab,
            coa_url=batch.coa_url,
            results=[
                LabResult(
                    key=r.key,
                    value=r.value,
                    unit=r.unit,
                    qualifier=Qualifier(r.qualifier) if r.qualifier is not None else None,
                )
                for r in batch.results
            ],
            total_thc=batch.total_thc,
            total_cbd=batch.total_cbd,
        )


LAB = "The lab result of the batch on the shelf; null without one."
PRICE_PER_GRAM = (
    "US dollars per gram, two decimals: the price over the grams of a weight unit (1g, 3.5g, "
    "7g, 14g, 28g, 1oz); null for other units."
)
