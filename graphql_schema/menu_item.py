"""A menu item, and whether a query reads its strain (then the menu fetches the strains with it)."""

from collections.abc import Iterable
from typing import TYPE_CHECKING

import strawberry
from strawberry import Info
from strawberry.types.nodes import SelectedField, Selection

from service.dispensaries import MenuEntry

from .accel.nodes import per_field_nodes
from .context import Context
from .lab_type import LAB, PRICE_PER_GRAM, LabBatch
from .lazy import LazyStrain

if TYPE_CHECKING:
    from .strain_type import Strain


@strawberry.type(description="One item of a dispensary's menu; price in US dollars.")
class MenuItem:
    name: str
    category: str
    price: float
    unit: str
    strain_slug: str | None
    # Set by Dispensary.menu when the query selects it (see _selects_strain), else never read.
    strain: LazyStrain | None = strawberry.field(
        default=None, description="The strain, when the item is a strain's flower."
    )
    lab: LabBatch | None = strawberry.field(default=None, description=LAB)
    price_per_gram: float | None = strawberry.field(default=None, description=PRICE_PER_GRAM)

    @classmethod
    def from_entry(cls, entry: MenuEntry, strain: "Strain | None" = None) -> "MenuItem":
        return cls(
            name=entry.name,
            category=entry.category,
            price=entry.price,
            unit=entry.unit,
            strain_slug=entry.strain,
            strain=strain,
            lab=LabBatch.of(entry.lab),
            price_per_gram=entry.price_per_gram,
        )


def menu_selects_strain(info: Info[Context, None]) -> bool:
    """``_selects_strain`` of this ``menu`` field, shared by all the dispensaries that resolve
    it (``per_field_nodes``)."""
    return per_field_nodes(info, lambda: _selects_strain(info.selected_fields))


def _selects_strain(menu_fields: Iterable[Selection]) -> bool:
    """Whether the query asks for the ``strain`` of a menu's items: in any of the field nodes
    merged into this ``menu`` field, directly, under an alias or in any fragment, whatever its
    directives. It over-approximates (a skipped ``strain`` still counts), so an item's strain is
    never left out when the field is resolved."""
    return any(_item_selects_strain(field.selections) for field in menu_fields)


def _item_selects_strain(selections: Iterable[Selection]) -> bool:
    for selection in selections:
        if isinstance(selection, SelectedField):
            if selection.name == "strain":
                return True
        elif _item_selects_strain(selection.selections):  # inline fragment or fragment spread
            return True
    return False
