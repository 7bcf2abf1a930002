"""Static limits of a GraphQL document, checked before graphql-core validates it.

Depth, aliases, fragment spreads and the worst-case cost (the number of values the answer can
hold) come from one walk over the document (``cost_walk``) in which each fragment definition is
summarised once, however often it is spread: Strawberry's depth and alias limiters walk a
fragment again at every spread, exponential in nested fragments. Variables are coerced as
execution coerces them before the walk. Verdicts are remembered per document and per value of
every variable the walk read, so a repeated document costs a dictionary lookup.
"""

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from hashlib import blake2b
from threading import Lock
from typing import Any

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)
from graphql.execution.values import VariableValues, get_variable_values
from strawberry.extensions import SchemaExtension

from service.dataset import EMPTY_TABLES, TableSizes

from .context import Context
from .cost_walk import LIST_SIZES, SATURATED, SchemaFacts, Walk, saturate

__all__ = ["LIST_SIZES", "CostLimits", "DocumentLimits", "SchemaFacts", "analyse"]

MAX_DEPTH = 10
MAX_ALIASES = 15
# Spreads written in the document. GraphiQL's introspection query has 7 and the README's
# examples none; 64 leaves room for fragment-per-component clients while keeping graphql-core's
# pairwise fragment comparisons (OverlappingFieldsCanBeMerged) small.
MAX_SPREADS = 64
DEPTH_ERROR = "'{name}' exceeds maximum operation depth of {limit}"
ALIASES_ERROR = "{count} aliases found. Allowed: {limit}"
SPREADS_ERROR = "{count} fragment spreads found. Allowed: {limit}"
NESTING_ERROR = "Document is nested too deeply to estimate its cost"
COST_ERROR = (
    "Estimated query cost {estimate} exceeds the budget of {budget}: every field counts once "
    "per item of each list around it (a list's limit, or its default), and what a field makes "
    "the server do adds to it (resolvers, statements, rows read: docs/graphql.md); lower the "
    "limits, select fewer nested lists and fields, or split the query"
)


@dataclass(frozen=True)
class Analysis:
    """A document's verdict on the fixed limits (``error``), its cost for the variables given,
    and the variables the cost depends on (those the walk read)."""

    error: str | None
    cost: int
    variables: tuple[str, ...] = ()
    # False when some variables or arguments did not coerce: the cost is not remembered.
    exact: bool = True


def count_spreads(document: DocumentNode) -> int:
    """Fragment spreads written in the document (every definition, used or not)."""
    count = 0
    stack: list[SelectionSetNode] = [
        found for d in document.definitions if (found := getattr(d, "selection_set", None))
    ]
    while stack:
        for selection in stack.pop().selections:
            if isinstance(selection, FragmentSpreadNode):
                count += 1
            elif (
                isinstance(selection, (FieldNode, InlineFragmentNode))
                and selection.selection_set is not None
            ):
                stack.append(selection.selection_set)
    return count


def analyse(
    facts: SchemaFacts,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
    *,
    sizes: TableSizes = EMPTY_TABLES,
    max_spreads: int = MAX_SPREADS,
) -> Analysis:
    """Depth, aliases and spreads of every operation; the cost of the one that runs, its
    rows read weighed by ``sizes`` (the data's table sizes)."""
    spreads = count_spreads(document)
    if spreads > max_spreads:
        return Analysis(SPREADS_ERROR.format(count=spreads, limit=max_spreads), 0)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments: dict[str, FragmentDefinitionNode] = {}
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            fragments.setdefault(definition.name.value, definition)
    chosen = _chosen(operations, operation_name)
    coerced = _coerced(facts.schema, chosen, variables)
    walk = Walk(facts, fragments, coerced, sizes)
    error = None
    aliases = 0
    costs = []
    for operation in operations:
        totals = walk.selections(
            operation.selection_set.selections, facts.root(operation.operation)
        )
        if error is None and totals.depth > MAX_DEPTH:
            name = operation.name.value if operation.name else "anonymous"
            error = DEPTH_ERROR.format(name=name, limit=MAX_DEPTH)
        aliases += totals.aliases
        if chosen is None or operation is chosen:
            costs.append(saturate(totals.cost + totals.per_item + totals.fixed))
    if error is None and aliases > MAX_ALIASES:
        error = ALIASES_ERROR.format(count=aliases, limit=MAX_ALIASES)
    if chosen is not None and coerced is None:
        # Variables that do not coerce run nothing: graphql-core answers with their error.
        return Analysis(error, 0, tuple(sorted(walk.read)), exact=False)
    return Analysis(error, max(costs, default=0), tuple(sorted(walk.read)), not walk.unsure)


def _chosen(
    operations: list[OperationDefinitionNode], name: str | None
) -> OperationDefinitionNode | None:
    """The operation that runs; None when it is not clear (then the costliest counts)."""
    if name is None:
        return operations[0] if len(operations) == 1 else None
    return next((o for o in operations if o.name and o.name.value == name), None)


def _coerced(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode | None,
    variables: Mapping[str, Any] | None,
) -> VariableValues | None:
    """The operation's variables exactly as execution coerces them (a JSON 100.0 becomes the
    Int 100; defaults apply), or None when they do not coerce or the operation is unknown."""
    if operation is None:
        return None
    given = dict(variables) if isinstance(variables, Mapping) else {}
    found = get_variable_values(schema, operation.variable_definitions or (), given)
    return None if isinstance(found, list) else found


class Recent:
    """A small least-recently-used map, safe to share between threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def _given(names: tuple[str, ...], variables: Mapping[str, Any] | None) -> Hashable:
    """The values given for ``names`` (JSON, keys sorted; absent ones marked), which decide
    everything the walk read from them; None when they are not plain JSON."""
    given = variables if isinstance(variables, Mapping) else {}
    try:
        return tuple(
            (name, orjson.dumps(given[name], option=orjson.OPT_SORT_KEYS))
            if name in given
            else (name,)
            for name in names
        )
    except TypeError:
        return None


class DocumentLimits:
    """The limits of one schema's documents with a cost ``budget``; verdicts are remembered per
    document text and operation, costs also per value of the variables the walk read."""

    def __init__(self, budget: int, *, remembered: int = 512) -> None:
        self.budget = budget
        self._facts: SchemaFacts | None = None
        self._shapes = Recent(remembered)
        self._costs = Recent(remembered)

    def attach(self, schema: GraphQLSchema) -> None:
        self._facts = SchemaFacts(schema)

    @property
    def facts(self) -> SchemaFacts:
        if self._facts is None:
            raise RuntimeError("DocumentLimits.attach(schema) was not called")
        return self._facts

    @property
    def extension(self) -> Callable[[], SchemaExtension]:
        """A factory of the schema extension that applies these limits."""
        return partial(CostLimits, self)

    def check(
        self,
        document: DocumentNode,
        text: str | None,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        sizes: TableSizes = EMPTY_TABLES,
    ) -> int:
        """The document's estimated cost; raises GraphQLError when a limit refuses it."""
        analysis = self.estimate(document, text, operation_name, variables, sizes)
        if analysis.error is not None:
            raise GraphQLError(analysis.error)
        if analysis.cost > self.budget:
            raise GraphQLError(
                COST_ERROR.format(estimate=_shown(analysis.cost), budget=self.budget),
                extensions={"cost": {"requested": analysis.cost, "budget": self.budget}},
            )
        return analysis.cost

    def estimate(
        self,
        document: DocumentNode,
        text: str | None,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        sizes: TableSizes = EMPTY_TABLES,
    ) -> Analysis:
        """The analysis of ``document``, from memory when its text was seen with these limits
        (and these variables and table sizes)."""
        if text is None:
            return self._analyse(document, operation_name, variables, sizes)
        # By digest: a remembered verdict keeps 16 bytes of its document, not up to 64 KiB.
        key = (
            blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest(),
            operation_name,
        )
        shape: Analysis | None = self._shapes.get(key)
        if shape is not None and shape.error is not None:
            return shape
        if shape is not None:
            given = _given(shape.variables, variables)
            cost = self._costs.get((key, given, sizes)) if given is not None else None
            if cost is not None:
                return Analysis(None, cost, shape.variables)
        analysis = self._analyse(document, operation_name, variables, sizes)
        if not analysis.exact:
            return analysis
        self._shapes.put(key, analysis)
        if analysis.error is None:
            given = _given(analysis.variables, variables)
            if given is not None:
                self._costs.put((key, given, sizes), analysis.cost)
        return analysis

    def _analyse(
        self,
        document: DocumentNode,
        operation_name: str | None,
        variables: Mapping[str, Any] | None,
        sizes: TableSizes,
    ) -> Analysis:
        try:
            return analyse(self.facts, document, operation_name, variables, sizes=sizes)
        except RecursionError:
            return Analysis(NESTING_ERROR, 0)


def _shown(cost: int) -> str:
    return str(cost) if cost < SATURATED else f"over {SATURATED}"


class CostLimits(SchemaExtension):
    """Refuse a document over a limit before graphql-core's own validation runs (which would
    otherwise take its time over it); note an admitted document's cost in the Context and in
    the result's extensions (the view keeps it only on results with data)."""

    def __init__(self, limits: DocumentLimits) -> None:
        super().__init__()
        self.limits = limits

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None:
            ours = context.context if isinstance(context.context, Context) else None
            requested = self.limits.check(
                document,
                context.query,
                context.operation_name,
                context.variables,
                ours.sizes() if ours is not None else EMPTY_TABLES,
            )
            if isinstance(context.context, Context):
                context.context.cost = {"requested": requested, "budget": self.limits.budget}
        yield

    def get_results(self) -> dict[str, Any]:
        context = self.execution_context.context
        cost = context.cost if isinstance(context, Context) else None
        return {} if cost is None else {"cost": cost}
