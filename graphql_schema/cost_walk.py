"""The walk behind cost.py: one pass over a document that sums each selection's depth, aliases
and values, with each fragment definition summarised once however often it is spread.

Values: each field counts once for every item of every list around it and, if it is a list,
once per item it can return. A list's size is its ``limit`` as execution coerces it (literal,
variable or default; graphql-core's own argument coercion), clamped as the resolvers clamp it; a
page's ``items`` take the size of the page's ``limit``; introspection is counted exactly
(``introspection_cost``). Fields repeated under one response name count once, as graphql-core
merges them; anything else is summed (aliases and fragments in full). The work behind the values
(cost_work) is added per call of a resolved field and once per request level for a statement.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationType,
    SelectionNode,
    ValueNode,
    VariableNode,
    get_named_type,
    is_leaf_type,
)
from graphql.execution.values import VariableValues, get_argument_values
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef

from service.bounds import LISTS
from service.compounds import CANNABINOID_KEYS, COMPOUNDS, MAX_PARENTS, TERPENE_KEYS
from service.dataset import TableSizes
from service.geo import JURISDICTIONS
from service.lab import MAX_LAB_RESULTS
from service.lineage import LINEAGE_MAX_EDGES, LINEAGE_MAX_NODES
from service.nodes import MAX_NODE_IDS

from .cost_work import ARGUMENT, CALL, INTROSPECTION, ROWS, WORK, rows_read
from .introspection_cost import IntrospectionCount

# Sums and products stop here, far above any budget, so numbers never grow without bound.
SATURATED = 10**15
PAGE_ITEMS = "items"


@dataclass(frozen=True)
class ListSize:
    """The most items a list field (or a page's ``items``) returns; ``argument`` asks for fewer."""

    maximum: int
    argument: str | None = "limit"


# Every list of objects in the schema, and every page, by (type, field): the service's bounds
# (service.bounds, a list operation being a field of Query) and the laws, one record per
# jurisdiction. Defaults come from the schema's argument defaults; attach() refuses a schema
# with a list or page missing here.
LIST_SIZES: dict[tuple[str, str], ListSize] = {
    **{(bound.owner or "Query", bound.name): ListSize(bound.maximum) for bound in LISTS},
    ("Query", "laws"): ListSize(len(JURISDICTIONS), argument=None),
    # One record per id asked for (the argument is a list: its length is the size).
    ("Query", "nodes"): ListSize(MAX_NODE_IDS, argument="ids"),
    # The chemistry vocabulary: every compound, a strain's compounds of each kind, its parents.
    ("Query", "compounds"): ListSize(len(COMPOUNDS), argument=None),
    ("Chemistry", "cannabinoids"): ListSize(len(CANNABINOID_KEYS), argument=None),
    ("Chemistry", "terpenes"): ListSize(len(TERPENE_KEYS), argument=None),
    ("Lineage", "parents"): ListSize(MAX_PARENTS, argument=None),
    # A batch's results: at most one per compound.
    ("LabBatch", "results"): ListSize(MAX_LAB_RESULTS, argument=None),
    # A lineage's strains and links, at their bounds (service.lineage).
    ("LineageGraph", "nodes"): ListSize(LINEAGE_MAX_NODES, argument=None),
    ("LineageGraph", "edges"): ListSize(LINEAGE_MAX_EDGES, argument=None),
}


def saturate(value: int) -> int:
    return value if value < SATURATED else SATURATED


def _unwrapped(field_type: Any) -> Any:
    return field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type


def _is_list(field_type: Any) -> bool:
    return isinstance(_unwrapped(field_type), GraphQLList)


@dataclass(frozen=True)
class Sized:
    """A sized field of the schema: its bounds, its argument's default, whether it is a page,
    and the name its size argument has among the coerced arguments."""

    size: ListSize
    default: int
    page: bool
    out_name: str | None = None


class SchemaFacts:
    """What the walk needs to know of one graphql-core schema, worked out once."""

    def __init__(self, schema: GraphQLSchema) -> None:
        self.schema = schema
        self.sized: dict[tuple[str, str], Sized] = {}
        self.page_types: set[str] = set()
        for (type_name, field_name), size in LIST_SIZES.items():
            owner = schema.type_map.get(type_name)
            field = owner.fields.get(field_name) if isinstance(owner, GraphQLObjectType) else None
            if field is None:
                raise RuntimeError(f"LIST_SIZES names {type_name}.{field_name}: no such field")
            argument = field.args.get(size.argument) if size.argument else None
            default = argument.default_value if argument is not None else size.maximum
            if not isinstance(default, int):
                default = size.maximum
            page = not _is_list(field.type)
            out_name = (argument.out_name or size.argument) if argument is not None else None
            self.sized[(type_name, field_name)] = Sized(
                size, min(default, size.maximum), page, out_name
            )
            if page:
                self.page_types.add(get_named_type(field.type).name)
        missing = self._unsized_lists()
        if missing:
            raise RuntimeError(f"lists without a size in LIST_SIZES: {', '.join(missing)}")

    def _unsized_lists(self) -> list[str]:
        """Lists of objects (other than pages' items) and pages that the table does not size."""
        missing = []
        for type_name, named in self.schema.type_map.items():
            if type_name.startswith("__") or not isinstance(named, GraphQLObjectType):
                continue
            for field_name, field in named.fields.items():
                if (type_name, field_name) in self.sized:
                    continue
                inner = get_named_type(field.type)
                lists_objects = _is_list(field.type) and not is_leaf_type(inner)
                is_items = field_name == PAGE_ITEMS and type_name in self.page_types
                if (lists_objects and not is_items) or self._is_page(inner):
                    missing.append(f"{type_name}.{field_name}")
        return missing

    @staticmethod
    def _is_page(named: GraphQLNamedType) -> bool:
        if not isinstance(named, GraphQLObjectType):
            return False
        items = named.fields.get(PAGE_ITEMS)
        return items is not None and _is_list(items.type)

    def field(self, parent: GraphQLNamedType | None, name: str) -> GraphQLField | None:
        if name == "__schema" and parent is self.schema.query_type:
            return SchemaMetaFieldDef
        if name == "__type" and parent is self.schema.query_type:
            return TypeMetaFieldDef
        if isinstance(parent, (GraphQLObjectType, GraphQLInterfaceType)):
            field: GraphQLField | None = parent.fields.get(name)
            return field
        return None  # unknown type or field, __typename, a union's field: counted as 1

    def named(self, name: str) -> GraphQLNamedType | None:
        return self.schema.type_map.get(name)

    def root(self, operation: OperationType) -> GraphQLObjectType | None:
        return self.schema.get_root_type(operation)


@dataclass(frozen=True)
class Totals:
    """A selection's depth, aliases and values: ``cost`` per value of its parent and
    ``per_item`` per item of its parent's page (the values under a page's ``items``), and
    ``fixed``, the work done once however many parents there are (a batched statement)."""

    depth: int = 0
    aliases: int = 0
    cost: int = 0
    per_item: int = 0
    fixed: int = 0


NOTHING = Totals()


class Walk:
    """One walk over a document's operations; each fragment is summarised once (``memo``)."""

    def __init__(
        self,
        facts: SchemaFacts,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: VariableValues | None,
        sizes: TableSizes,
    ) -> None:
        self.facts = facts
        self.fragments = fragments
        self.sizes = sizes  # what rows read are weighed by
        # The operation's variables as execution coerces them; None when they do not coerce
        # (execution then runs nothing: cost.analyse prices nothing).
        self.variables = variables
        self.memo: dict[str, Totals] = {}
        self.open: set[str] = set()
        self.read: set[str] = set()  # the variables the cost depends on
        # Whether some arguments did not coerce: the cost then holds for these variables only.
        self.unsure = False
        self.introspection = IntrospectionCount(facts.schema, fragments, self.type_name, saturate)

    def selections(self, nodes: Iterable[SelectionNode], parent: GraphQLNamedType | None) -> Totals:
        depth = aliases = cost = per_item = fixed = 0
        fields: dict[str, list[FieldNode]] = {}
        for node in nodes:
            if isinstance(node, FieldNode):
                fields.setdefault((node.alias or node.name).value, []).append(node)
                continue
            if isinstance(node, InlineFragmentNode):
                condition = node.type_condition
                inner = self.selections(
                    node.selection_set.selections,
                    self.facts.named(condition.name.value) if condition else parent,
                )
            elif isinstance(node, FragmentSpreadNode):
                inner = self.fragment(node.name.value)
            else:  # pragma: no cover - the three kinds of selection
                continue
            depth = max(depth, inner.depth)
            aliases += inner.aliases
            cost = saturate(cost + inner.cost)
            per_item = saturate(per_item + inner.per_item)
            fixed = saturate(fixed + inner.fixed)
        for group in fields.values():
            inner, values, is_items = self.field(group, parent)
            depth = max(depth, inner.depth)
            aliases += inner.aliases
            fixed = saturate(fixed + inner.fixed)
            if is_items:
                per_item = saturate(per_item + values)
            else:
                cost = saturate(cost + values)
        return Totals(depth, aliases, cost, per_item, fixed)

    def field(
        self, group: list[FieldNode], parent: GraphQLNamedType | None
    ) -> tuple[Totals, int, bool]:
        """Totals of one response name (its nodes merged): depth, aliases and the work done
        once, the values and work it adds per parent, and whether those are per item of the
        parent's page."""
        name = group[0].name.value
        definition = self.facts.field(parent, name)
        named = get_named_type(definition.type) if definition is not None else None
        children = [
            s for node in group if node.selection_set for s in node.selection_set.selections
        ]
        inner = self.selections(children, named) if children else NOTHING
        aliases = inner.aliases + sum(1 for node in group if node.alias)
        # Introspection does not count towards depth, as with Strawberry's limiter.
        depth = 1 + inner.depth if children and not name.startswith("__") else 0
        if definition in (SchemaMetaFieldDef, TypeMetaFieldDef):
            values = saturate(self.introspection.root(group) * INTROSPECTION)
            return Totals(depth, aliases, fixed=inner.fixed), values, False
        owner = parent.name if parent is not None else ""
        calls, fixed = self.work(owner, group, definition) if definition is not None else (0, 0)
        sized = self.facts.sized.get((parent.name, name)) if parent is not None else None
        size = (
            max(self.size(node, sized, definition) for node in group)
            if sized is not None and definition is not None
            else 1
        )
        page = size if sized is not None and sized.page else 1
        below = saturate(inner.cost + saturate(inner.per_item * page))
        each = saturate(1 + below)
        is_items = (
            name == PAGE_ITEMS and parent is not None and parent.name in self.facts.page_types
        )
        count = size if sized is not None and not sized.page else 1
        values = saturate(calls + saturate(count * each))
        return Totals(depth, aliases, fixed=saturate(inner.fixed + fixed)), values, is_items

    def work(self, owner: str, group: list[FieldNode], definition: GraphQLField) -> tuple[int, int]:
        """(work per call, work once per request level) of a field (cost_work)."""
        name = group[0].name.value
        work = WORK.get((owner, name))
        if work is None:
            return 0, 0
        per_call = CALL + ARGUMENT * len(definition.args) + work.call
        reading = ROWS.get((owner, name))
        if reading is not None:
            used = reading.arguments
            read = max(
                rows_read(owner, name, self.arguments(definition, node, *used), self.sizes)
                for node in group
            )
            per_call = saturate(per_call + read)
        return per_call, work.statement

    def arguments(
        self, definition: GraphQLField, node: FieldNode, *used: str
    ) -> dict[str, Any] | None:
        """The field's arguments exactly as execution coerces them (defaults applied), by their
        Python names, noting the variables of the ``used`` ones as read; None when they do not
        coerce (graphql-core refuses the field then, and the walk's cost is not remembered)."""
        for argument in node.arguments or ():
            if argument.name.value in used:
                _note_variables(argument.value, self.read)
        if self.variables is None:
            self.unsure = True  # literals still count; variables take their defaults
        try:
            return get_argument_values(definition, node, self.variables)
        except GraphQLError:
            self.unsure = True
            return None

    def size(self, node: FieldNode, sized: Sized, definition: GraphQLField) -> int:
        """How many items ``node`` asks for, clamped to 1 .. the maximum as the resolvers do."""
        if sized.out_name is None:
            return sized.size.maximum
        arguments = self.arguments(definition, node, cast(str, sized.size.argument))
        requested = arguments.get(sized.out_name) if arguments is not None else None
        if isinstance(requested, list):
            requested = len(requested)  # a list of keys (nodes' ids): one item per key
        if not isinstance(requested, int) or isinstance(requested, bool):
            requested = sized.default  # null, or refused by graphql-core itself
        return min(max(requested, 1), sized.size.maximum)

    def type_name(self, node: FieldNode) -> str | None:
        """The ``name`` a ``__type`` field asks for, or None when it cannot be known."""
        arguments = self.arguments(TypeMetaFieldDef, node, "name")
        name = arguments.get("name") if arguments is not None else None
        return name if isinstance(name, str) else None

    def fragment(self, name: str) -> Totals:
        known = self.memo.get(name)
        if known is not None:
            return known
        definition = self.fragments.get(name)
        if definition is None or name in self.open:
            return NOTHING  # unknown fragments and cycles are graphql-core's to report
        self.open.add(name)
        totals = self.selections(
            definition.selection_set.selections,
            self.facts.named(definition.type_condition.name.value),
        )
        self.open.discard(name)
        self.memo[name] = totals
        return totals


def _note_variables(value: ValueNode, found: set[str]) -> None:
    """Add the names of the variables ``value`` refers to (in lists and input objects too)."""
    if isinstance(value, VariableNode):
        found.add(value.name.value)
    elif isinstance(value, ListValueNode):
        for item in value.values:
            _note_variables(item, found)
    elif isinstance(value, ObjectValueNode):
        for field in value.fields:
            _note_variables(field.value, found)
