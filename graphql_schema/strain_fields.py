"""Query.strains: strains by type, effect, flavor, THC and CBD range, chemistry and parent."""

from strawberry import Info

from service import bounds, strains
from service.filters import StrainFilters
from service.paging import PageRequest

from .arguments import (
    CbcMin,
    CbdMax,
    CbdMin,
    CbgMin,
    CbnMin,
    DominantTerpene,
    DominantTerpenes,
    Effect,
    Effects,
    Flavor,
    Flavors,
    Offset,
    Parent,
    RatioFilter,
    Ratios,
    StrainOrder,
    StrainsLimit,
    StrainTypeFilter,
    StrainTypes,
    Terpene,
    Terpenes,
    ThcMax,
    ThcMin,
    ThcvMin,
    UpdatedSince,
)
from .context import Context
from .places import updated_since as since_of
from .places import value
from .plurals import AnyOf, enum_values
from .strain_type import Strain
from .types import Page


def strains_page(
    info: Info[Context, None],
    type: StrainTypeFilter = None,
    types: StrainTypes = None,
    effect: Effect = None,
    effects: Effects = None,
    flavor: Flavor = None,
    flavors: Flavors = None,
    thc_min: ThcMin = None,
    thc_max: ThcMax = None,
    cbd_min: CbdMin = None,
    cbd_max: CbdMax = None,
    limit: StrainsLimit = bounds.STRAINS.default,
    offset: Offset = 0,
    updated_since: UpdatedSince = None,
    sort: StrainOrder = None,
    terpene: Terpene = None,
    terpenes: Terpenes = None,
    dominant_terpene: DominantTerpene = None,
    dominant_terpenes: DominantTerpenes = None,
    ratio: RatioFilter = None,
    ratios: Ratios = None,
    cbg_min: CbgMin = None,
    cbn_min: CbnMin = None,
    thcv_min: ThcvMin = None,
    cbc_min: CbcMin = None,
    parent: Parent = None,
) -> Page[Strain] | None:
    """Query.strains."""
    any_of = AnyOf()
    type_or_types = any_of.pick("type", type, "types", types)
    effect_or_effects = any_of.pick("effect", effect, "effects", effects)
    flavor_or_flavors = any_of.pick("flavor", flavor, "flavors", flavors)
    terpene_or_terpenes = any_of.pick("terpene", terpene, "terpenes", terpenes)
    dominant = any_of.pick(
        "dominant_terpene", dominant_terpene, "dominant_terpenes", dominant_terpenes
    )
    ratio_or_ratios = any_of.pick("ratio", ratio, "ratios", ratios)
    with any_of.naming():
        filters = StrainFilters.create(
            type=enum_values(type_or_types),
            effect=effect_or_effects,
            flavor=flavor_or_flavors,
            thc_min=thc_min,
            thc_max=thc_max,
            cbd_min=cbd_min,
            cbd_max=cbd_max,
            updated_since=since_of(updated_since, info.context.instant),
            sort=value(sort),
            terpene=enum_values(terpene_or_terpenes),
            dominant_terpene=enum_values(dominant),
            ratio=enum_values(ratio_or_ratios),
            cbg_min=cbg_min,
            cbn_min=cbn_min,
            thcv_min=thcv_min,
            cbc_min=cbc_min,
            parent=parent,
        )
    page = strains.list_strains(
        info.context.db, filters, PageRequest.within(bounds.STRAINS, limit, offset)
    )
    return Page.of(page, [Strain.from_model(s, info) for s in page.items])
