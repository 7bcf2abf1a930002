"""The output types that refer to one another, named lazily: a dispensary lists its deals and
its menu's strains, a deal names its dispensary, a strain its stockists. Each of their modules
annotates the others' types with these, so none needs another loaded first; Strawberry looks the
types up when it builds the schema."""

from typing import TYPE_CHECKING, Annotated

import strawberry

if TYPE_CHECKING:
    from .deal_type import Deal
    from .dispensary_type import Dispensary
    from .strain_type import Strain

LazyDeal = Annotated["Deal", strawberry.lazy("graphql_schema.deal_type")]
LazyDispensary = Annotated["Dispensary", strawberry.lazy("graphql_schema.dispensary_type")]
LazyStrain = Annotated["Strain", strawberry.lazy("graphql_schema.strain_type")]
