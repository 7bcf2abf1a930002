"""A strain's typical chemistry and lineage summary (Strain.chemistry, Strain.lineage) and the
compounds the service knows (Query.compounds): REST's objects, camelCase.

The strains of a request load their chemistry (and their lineage) together: one statement per
relation for every strain built so far (the batch cache), none for the strain of
``Query.strain``, whose detail already read them (``prime_detail``).
"""

import strawberry
from strawberry import Info

from service import compounds, strain_detail
from service.strain_detail import Chemistry as ChemistryRow
from service.strain_detail import CompoundAmount
from service.strain_detail import Lineage as LineageRow
from service.strains import StrainDetail

from .context import Context
from .enums import Basis, CompoundKey, CompoundKind, Origin, Ratio, TerpeneKey

_PERCENTILE = "percentile over the strain's samples, percent of dry weight (0 to 100)."
CHEMISTRY = "chemistry"
LINEAGE = "lineage"


@strawberry.type(description="One compound's spread over a strain's samples.")
class ChemistryCompound:
    key: CompoundKey
    name: str
    unit: str = strawberry.field(description="percent: percent of dry weight, 0 to 100.")
    p25: float = strawberry.field(description=f"25th {_PERCENTILE}")
    p50: float = strawberry.field(description=f"50th (the median) {_PERCENTILE}")
    p75: float = strawberry.field(description=f"75th {_PERCENTILE}")

    @classmethod
    def of(cls, amount: CompoundAmount) -> "ChemistryCompound":
        return cls(
            key=CompoundKey(amount.key),
            name=amount.name,
            unit=amount.unit,
            p25=amount.p25,
            p50=amount.p50,
            p75=amount.p75,
        )


@strawberry.type(description="A total's percentiles over a strain's samples.")
class ChemistrySpread:
    p25: float = strawberry.field(description=f"25th {_PERCENTILE}")
    p50: float = strawberry.field(description=f"50th (the median) {_PERCENTILE}")
    p75: float = strawberry.field(description=f"75th {_PERCENTILE}")


@strawberry.type(description="A total's percentiles and the formula each sample's total follows.")
class ChemistryTotal:
    p25: float = strawberry.field(description=f"25th {_PERCENTILE}")
    p50: float = strawberry.field(description=f"50th (the median) {_PERCENTILE}")
    p75: float = strawberry.field(description=f"75th {_PERCENTILE}")
    formula: str = strawberry.field(
        description=f"How the total is computed: {compounds.TOTAL_THC_FORMULA} or "
        f"{compounds.TOTAL_CBD_FORMULA}."
    )


@strawberry.type(description="A strain's typical chemistry: percentiles over its samples.")
class Chemistry:
    basis: Basis
    sample_count: int = strawberry.field(description="Samples the percentiles are taken over.")
    source: str = strawberry.field(description="Where the samples come from, such as demo.")
    cannabinoids: list[ChemistryCompound] = strawberry.field(description="Highest median first.")
    terpenes: list[ChemistryCompound] = strawberry.field(
        description="Highest median first; the first is the dominant terpene."
    )
    total_thc: ChemistryTotal
    total_cbd: ChemistryTotal
    total_terpenes: ChemistrySpread
    dominant_terpene: TerpeneKey | None = strawberry.field(
        description="The terpene with the highest median; null when none was measured."
    )
    ratio: Ratio

    @classmethod
    def of(cls, row: ChemistryRow) -> "Chemistry":
        return cls(
            basis=Basis(row.basis),
            sample_count=row.sample_count,
            source=row.source,
            cannabinoids=[ChemistryCompound.of(amount) for amount in row.cannabinoids],
            terpenes=[ChemistryCompound.of(amount) for amount in row.terpenes],
            total_thc=ChemistryTotal(**row.total_thc._asdict()),
            total_cbd=ChemistryTotal(**row.total_cbd._asdict()),
            total_terpenes=ChemistrySpread(**row.total_terpenes._asdict()),
            dominant_terpene=_terpene(row.dominant_terpene),
            ratio=Ratio(row.ratio),
        )


@strawberry.type(description="A parent of a strain: query strain(slug:) for the rest of it.")
class ParentStrain:
    slug: str
    name: str


@strawberry.type(description="Where a strain comes from.")
class Lineage:
    origin: Origin
    parents: list[ParentStrain] = strawberry.field(
        description="First parent first; empty for a landrace or an unknown origin."
    )
    children_count: int = strawberry.field(description="Strains bred from this one.")

    @classmethod
    def of(cls, row: LineageRow) -> "Lineage":
        return cls(
            origin=Origin(row.origin),
            parents=[ParentStrain(slug=p.slug, name=p.name) for p in row.parents],
            children_count=row.children_count,
        )


@strawberry.type(description="A compound the service knows; key is what chemistry shows.")
class Compound:
    key: CompoundKey
    name: str
    kind: CompoundKind
    aliases: list[str] = strawberry.field(
        description="Other names lab reports print for it (the import accepts them)."
    )


def _terpene(key: str | None) -> TerpeneKey | None:
    return TerpeneKey(key) if key is not None else None


def terpene_of(key: str | None) -> TerpeneKey | None:
    """A strain row's dominant terpene key as the GraphQL enum (None stays None)."""
    return _terpene(key)


def ratio_of(word: str | None) -> Ratio | None:
    """A strain row's ratio word as the GraphQL enum (None stays None)."""
    return Ratio(word) if word is not None else None


def all_compounds() -> list[Compound]:
    """Query.compounds."""
    return [
        Compound(
            key=CompoundKey(c.key),
            name=c.name,
            kind=CompoundKind(c.kind),
            aliases=list(c.aliases),
        )
        for c in compounds.list_compounds()
    ]


def prime_detail(info: Info[Context, None], detail: StrainDetail) -> None:
    """Keep what a strain's detail read (terpenes, chemistry, lineage) for its fields."""
    batch = info.context.batch
    batch.prime("terpenes", detail.id, detail.terpenes)
    batch.prime(CHEMISTRY, detail.id, detail.chemistry)
    batch.prime(LINEAGE, detail.id, detail.lineage)


def chemistry_of(info: Info[Context, None], pk: int) -> Chemistry | None:
    """Strain.chemistry: fetched for every strain of the request at once."""
    ctx = info.context
    found: ChemistryRow | None = ctx.batch.load(
        CHEMISTRY, "strain", pk, lambda ids: strain_detail.chemistry_by_strain(ctx.db, ids)
    )
    return Chemistry.of(found) if found is not None else None


def lineage_of(info: Info[Context, None], pk: int) -> Lineage:
    """Strain.lineage: fetched for every strain of the request at once."""
    ctx = info.context
    found: LineageRow | None = ctx.batch.load(
        LINEAGE, "strain", pk, lambda ids: strain_detail.lineage_by_strain(ctx.db, ids)
    )
    if found is None:  # removed since the request read it
        return Lineage(origin=Origin.UNKNOWN, parents=[], children_count=0)
    return Lineage.of(found)
