"""The chemistry vocabulary, defined once: the compounds the service knows, the chemistry words
(origin, ratio, qualifier, lineage direction) and the formulas every total follows.

A compound's key is what the API shows and filters by; its aliases are the other names lab
reports print for it, which the import accepts (case-insensitively) and maps to the key.
"""

# ruff: noqa: RUF001 (lab reports print Greek letters, so some aliases carry them)
from collections.abc import Mapping
from enum import Enum
from typing import NamedTuple

from .vocab import words


class CompoundKind(Enum):
    """What a compound is."""

    CANNABINOID = "cannabinoid"
    TERPENE = "terpene"


class Compound(NamedTuple):
    key: str
    name: str
    kind: str
    aliases: tuple[str, ...]


_C = CompoundKind.CANNABINOID.value
_T = CompoundKind.TERPENE.value

# Cannabinoids first, acids beside their neutral forms, then terpenes: the order of GET /compounds.
COMPOUNDS: tuple[Compound, ...] = (
    Compound("thca", "THCA", _C, ("thc-a", "thca-a", "delta-9-thca", "Δ9-thca", "thc acid")),
    Compound("delta_9_thc", "Δ9-THC", _C, ("thc", "d9-thc", "delta-9-thc", "Δ9-thc", "delta9")),
    Compound("cbda", "CBDA", _C, ("cbd-a", "cbd acid")),
    Compound("cbd", "CBD", _C, ("cannabidiol",)),
    Compound("cbga", "CBGA", _C, ("cbg-a", "cbg acid")),
    Compound("cbg", "CBG", _C, ("cannabigerol",)),
    Compound("cbn", "CBN", _C, ("cannabinol",)),
    Compound("cbc", "CBC", _C, ("cannabichromene",)),
    Compound("thcv", "THCV", _C, ("tetrahydrocannabivarin", "thc-v")),
    Compound("myrcene", "Myrcene", _T, ("beta-myrcene", "β-myrcene", "b-myrcene")),
    Compound("limonene", "Limonene", _T, ("d-limonene", "(r)-(+)-limonene")),
    Compound(
        "caryophyllene", "Caryophyllene", _T, ("beta-caryophyllene", "β-caryophyllene", "bcp")
    ),
    Compound("pinene", "Pinene", _T, ("alpha-pinene", "α-pinene", "beta-pinene", "β-pinene")),
    Compound("linalool", "Linalool", _T, ()),
    Compound("humulene", "Humulene", _T, ("alpha-humulene", "α-humulene")),
    Compound("terpinolene", "Terpinolene", _T, ()),
    Compound("ocimene", "Ocimene", _T, ("beta-ocimene", "β-ocimene", "trans-ocimene")),
    Compound("bisabolol", "Bisabolol", _T, ("alpha-bisabolol", "α-bisabolol", "levomenol")),
)
BY_KEY: dict[str, Compound] = {compound.key: compound for compound in COMPOUNDS}
COMPOUND_KEYS = tuple(BY_KEY)
CANNABINOID_KEYS = tuple(c.key for c in COMPOUNDS if c.kind == _C)
TERPENE_KEYS = tuple(c.key for c in COMPOUNDS if c.kind == _T)
# Every name a lab report may use for a compound, folded to lower case -> its key.
BY_ALIAS: dict[str, str] = {
    name.casefold(): c.key for c in COMPOUNDS for name in (c.key, c.name, *c.aliases)
}

# Decarboxylation turns an acid into its neutral form losing CO2: 0.877 is the ratio of the
# molar masses (THC 314.5 / THCA 358.5; CBD and CBDA likewise), the factor labs and regulators use.
DECARB = 0.877
TOTAL_THC_FORMULA = "delta_9_thc + 0.877 * thca"
TOTAL_CBD_FORMULA = "cbd + 0.877 * cbda"
# The minor cannabinoids a strain list filters on by their median (``cbg_min`` and so on).
FILTERED_CANNABINOIDS = ("cbg", "cbn", "thcv", "cbc")
# The unit every stored amount is in: percent of dry weight, 0 to 100.
PERCENT = "percent"


class Origin(Enum):
    """Where a strain comes from."""

    CROSS = "cross"
    LANDRACE = "landrace"
    PHENOTYPE = "phenotype"
    UNKNOWN = "unknown"


class Ratio(Enum):
    """How a strain's (or a batch's) total THC compares with its total CBD, on the medians: one
    is dominant when it is at least twice the other."""

    THC_DOMINANT = "thc_dominant"
    CBD_DOMINANT = "cbd_dominant"
    BALANCED = "balanced"


class Qualifier(Enum):
    """Why a lab result has no value."""

    ND = "nd"  # not detected
    LT_LOQ = "lt_loq"  # detected below the limit of quantitation


class Basis(Enum):
    """What a strain's chemistry describes: the spread over many samples of it."""

    TYPICAL = "typical"


class LineageDirection(Enum):
    """Which way GET /strains/{slug}/lineage walks."""

    ANCESTORS = "ancestors"
    DESCENDANTS = "descendants"


ORIGINS = words(Origin)
RATIOS = words(Ratio)
QUALIFIERS = words(Qualifier)
LINEAGE_DIRECTIONS = words(LineageDirection)
LINEAGE_DEPTH_MAX = 3
# Menu item units that are a weight, and their grams (price_per_gram divides by these).
GRAMS_PER_UNIT: dict[str, float] = {
    "1g": 1.0,
    "3.5g": 3.5,
    "7g": 7.0,
    "14g": 14.0,
    "28g": 28.0,
    "1oz": 28.0,
}


def total(neutral: float | None, acid: float | None) -> float:
    """A total by the stated formula: neutral + 0.877 * acid, a missing input counting as 0."""
    return (neutral or 0.0) + DECARB * (acid or 0.0)


# Each total's (neutral, acid) compounds: the two formulas above as data.
TOTAL_INPUTS: dict[str, tuple[str, str]] = {
    "total_thc": ("delta_9_thc", "thca"),
    "total_cbd": ("cbd", "cbda"),
}


def total_of(name: str, amounts: Mapping[str, float | None]) -> float:
    """The total ``name`` (a TOTAL_INPUTS key) of amounts keyed by compound."""
    neutral, acid = TOTAL_INPUTS[name]
    return total(amounts.get(neutral), amounts.get(acid))


def ratio_of(total_thc: float, total_cbd: float) -> str:
    """The Ratio word for a total THC and total CBD (balanced when both are 0)."""
    if total_thc == total_cbd:
        return Ratio.BALANCED.value
    if total_thc >= 2 * total_cbd:
        return Ratio.THC_DOMINANT.value
    if total_cbd >= 2 * total_thc:
        return Ratio.CBD_DOMINANT.value
    return Ratio.BALANCED.value


def grams_of(unit: str) -> float | None:
    """The grams of a weight unit (spaces ignored: ``1 oz`` is ``1oz``); None for other units."""
    return GRAMS_PER_UNIT.get(unit.replace(" ", "").lower())


# The compound keys as Enum classes, for the edges that publish them as enums (GraphQL): built
# from COMPOUNDS, so the vocabulary stays defined once. Member names are the keys in upper case.
CompoundKey = Enum(  # type: ignore[misc]  # a functional Enum over the keys above
    "CompoundKey", [(key.upper(), key) for key in COMPOUND_KEYS]
)
TerpeneKey = Enum(  # type: ignore[misc]  # the terpenes among them (strain filters take these)
    "TerpeneKey", [(key.upper(), key) for key in TERPENE_KEYS]
)
# A strain's leading terpenes: its strain_terpenes rows (positions 0..2), what ``terpene`` filters.
LEADING_TERPENES = 3
UNITS = (PERCENT,)


def list_compounds() -> list[Compound]:
    """Every compound the service knows, in the order of COMPOUNDS (cannabinoids first)."""
    return list(COMPOUNDS)


BASES = words(Basis)
COMPOUND_KINDS = words(CompoundKind)
# The most parents a strain may have: two for a cross, one for a phenotype, three for the
# three-way crosses pedigrees print (A x B x C). The import enforces it; the GraphQL cost
# estimate and Strain.parents' page bound use it.
MAX_PARENTS = 3
