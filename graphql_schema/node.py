"""The ``Node`` interface: every record with a public id, so clients can normalise their caches
by ``__typename`` and ``id``. The ids are REST's and distinct across kinds (service.nodes)."""

import strawberry


@strawberry.interface(
    description="A record with an id unique across every kind: a strain's slug, disp_<n>, "
    "deal_<n>, doc_<n>, or a law's state code; the id REST uses for it."
)
class Node:
    id: strawberry.ID
