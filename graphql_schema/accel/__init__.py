"""Everything in the GraphQL edge that uses Strawberry's or graphql-core's private API.

Each module opens with the private names it uses and lists them in ``PRIVATE_API``
(``tests/accel/test_private_api.py`` checks that the installed versions still have them).

Speed tricks, off with ``make_schema(stock=True)`` (the ``SPEED_TRICKS`` setting):
``execution`` (plain fields completed without graphql-core's per-field work), ``direct``
(resolvers called without Strawberry's wrapper) and ``nodes`` (work shared by a field's
siblings). Always on, because the behaviour they give has no public hook: ``budgets`` (the
executor that stops at the time budget, the graphql-core schema the cost check reads).
"""
