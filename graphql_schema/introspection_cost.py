"""Exact value counts of introspection selections (``__schema``, ``__type``), for cost.py.

An introspection answer depends on the schema alone, and its lists (types, fields, arguments)
differ so much in size that a worst case per list would price GraphiQL's own introspection query
far above its answer. So the selection is walked over the schema's own objects with
graphql-core's introspection resolvers, counting values as cost.py does: one per field, one per
list item. Each selection (a fragment's included) is counted once per schema object (``memo``),
so the work is bounded by the document's size times the schema's.
"""

from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    SelectionNode,
    get_named_type,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef


def _key(node: Any, source: Any) -> tuple[Any, ...]:
    """What a selection's count on ``source`` is remembered by. Fields, arguments and enum
    values come as fresh (name, definition) pairs from the resolvers; the schema's own objects
    behind them live as long as the schema, so their ids stay theirs."""
    if isinstance(source, tuple):
        return (id(node), source[0], id(source[1]))
    return (id(node), id(source))


def _is_list(field_type: Any) -> bool:
    inner = field_type.of_type if isinstance(field_type, GraphQLNonNull) else field_type
    return isinstance(inner, GraphQLList)


class IntrospectionCount:
    """Counts what introspection selections return on ``schema``; ``saturate`` caps numbers."""

    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: Mapping[str, FragmentDefinitionNode],
        type_name: Callable[[FieldNode], str | None],
        saturate: Callable[[int], int],
    ) -> None:
        """``type_name``: the name a ``__type`` field asks for as execution coerces it, or
        None when it cannot be known."""
        self.schema = schema
        self.info = SimpleNamespace(schema=schema)  # all the introspection resolvers read
        self.fragments = fragments
        self.type_name = type_name
        self.saturate = saturate
        self.memo: dict[tuple[Any, ...], int] = {}
        self.open: set[str] = set()

    def root(self, group: list[FieldNode]) -> int:
        """The values of a ``__schema`` or ``__type`` field of the query root (merged nodes)."""
        children = [
            s for node in group if node.selection_set for s in node.selection_set.selections
        ]
        if group[0].name.value == "__schema":
            return self.field_value(SchemaMetaFieldDef.type, self.schema, children, group[0])
        name = self.type_name(group[0])
        if name is None:  # not known before execution: the largest type answer
            sources: list[GraphQLNamedType | None] = list(self.schema.type_map.values())
        else:
            sources = [self.schema.get_type(name)]
        return max(
            self.field_value(TypeMetaFieldDef.type, source, children, group[0])
            for source in sources
        )

    def field_value(
        self, field_type: Any, result: Any, children: Sequence[SelectionNode], node: FieldNode
    ) -> int:
        """Values of one field whose resolver returned ``result``."""
        if result is None or not children:
            return 1  # null, a leaf or a list of leaves (directive locations)
        named = get_named_type(field_type)
        if not isinstance(named, GraphQLObjectType):
            return 1
        if _is_list(field_type):
            total = 0
            for item in result:
                total = self.saturate(total + 1 + self.below(children, named, item, node))
            return total
        return self.saturate(1 + self.below(children, named, result, node))

    def below(
        self,
        children: Sequence[SelectionNode],
        object_type: GraphQLObjectType,
        source: Any,
        node: FieldNode | FragmentDefinitionNode,
    ) -> int:
        """Values under one object, worked out once per selection and schema object."""
        key = _key(node, source)
        known = self.memo.get(key)
        if known is None:
            known = self.memo[key] = self.selections(children, object_type, source)
        return known

    def selections(
        self, nodes: Sequence[SelectionNode], object_type: GraphQLObjectType, source: Any
    ) -> int:
        total = 0
        fields: dict[str, list[FieldNode]] = {}
        for node in nodes:
            if isinstance(node, FieldNode):
                fields.setdefault((node.alias or node.name).value, []).append(node)
            elif isinstance(node, InlineFragmentNode):
                inner = self.selections(node.selection_set.selections, object_type, source)
                total = self.saturate(total + inner)
            elif isinstance(node, FragmentSpreadNode):
                total = self.saturate(total + self.spread(node, object_type, source))
        for group in fields.values():
            total = self.saturate(total + self.field(group, object_type, source))
        return total

    def spread(self, node: FragmentSpreadNode, object_type: GraphQLObjectType, source: Any) -> int:
        name = node.name.value
        definition = self.fragments.get(name)
        if definition is None or name in self.open:
            return 0  # unknown fragments and cycles are graphql-core's to report
        self.open.add(name)
        try:
            return self.below(
                list(definition.selection_set.selections), object_type, source, definition
            )
        finally:
            self.open.discard(name)

    def field(self, group: list[FieldNode], object_type: GraphQLObjectType, source: Any) -> int:
        field = object_type.fields.get(group[0].name.value)
        if field is None or field.resolve is None:
            return 1  # __typename, or an unknown field (graphql-core reports it)
        children = [
            s for node in group if node.selection_set for s in node.selection_set.selections
        ]
        if not children:
            return 1
        # Deprecated entries included: an upper bound whatever the argument says.
        arguments = {"includeDeprecated": True} if "includeDeprecated" in field.args else {}
        result = field.resolve(source, self.info, **arguments)
        return self.field_value(field.type, result, children, group[0])
