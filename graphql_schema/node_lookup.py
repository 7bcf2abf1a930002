"""``node`` and ``nodes``: records of any kind by their ids, built exactly as the detail fields
(``strain(slug:)``, ``dispensary(id:)``...) build them, one statement per kind asked for."""

from collections.abc import Sequence

from strawberry import Info

from service.nodes import records_by_public_ids

from .context import Context
from .deal_type import Deal
from .dispensary_type import Dispensary
from .node import Node
from .strain_type import Strain
from .types import Doctor, Law


def nodes_by_ids(info: Info[Context, None], ids: Sequence[str]) -> list[Node | None]:
    """The records with ``ids``, in that order; None for an unknown id."""
    ctx = info.context
    found = records_by_public_ids(ctx.db, ids, today=ctx.today)
    built: dict[str, Node] = {}
    built.update((key, Strain.from_model(row, info)) for key, row in found.strains.items())
    built.update((key, Dispensary.from_model(row, info)) for key, row in found.dispensaries.items())
    built.update((key, Deal.from_model(row, info)) for key, row in found.deals.items())
    built.update((key, Doctor.from_model(row, info)) for key, row in found.doctors.items())
    built.update((key, Law.from_model(row)) for key, row in found.laws.items())
    return [built.get(key) for key in ids]
