"""A graphql-core executor that completes plain fields without the per-field machinery.

A *plain* field is one Strawberry resolves by attribute and that takes no arguments. A value
that is a scalar, an enum, or objects (or lists) whose selected fields are all plain again is
completed by a function built once per execution for its selection: attribute reads and the
scalars' ``coerce_output_value``. Any other field, and any value that would not complete cleanly,
goes graphql-core's own way from the start (the fast path only reads attributes, so that is
safe), so answers, errors and their paths are graphql-core's. The time budget is still checked
at every object. Off with ``stock=True``; ``tests/accel/test_graphql_execution.py`` compares.

Private names: graphql-core's executor methods ``complete_value``, ``execute_fields`` and
``collect_subfields``, its ``middleware_manager`` (whose ``middlewares`` say whether an
extension watches resolvers), ``is_awaitable`` and ``FieldDetails.node``; Strawberry's
``GraphQLCoreConverter.DEFINITION_BACKREF``, ``is_default_resolver`` (its ``_is_default`` mark)
and ``StrawberryField.is_basic_field``, ``default_resolver`` and ``python_name``.
"""

from collections.abc import Callable
from typing import Any

from graphql import (
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    Undefined,
    is_leaf_type,
)
from graphql.execution.collect_fields import FieldDetails
from strawberry.resolvers import is_default_resolver
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.field import StrawberryField

from .budgets import DeadlineExecution

PRIVATE_API = (
    "graphql.execution.Executor.complete_value",
    "graphql.execution.Executor.execute_fields",
    "graphql.execution.Executor.collect_subfields",
    "graphql.execution.Executor.middleware_manager",
    "graphql.execution.Executor.is_awaitable",
    "graphql.execution.middleware.MiddlewareManager.middlewares",
    "graphql.execution.collect_fields.FieldDetails.node",
    "strawberry.schema.schema_converter.GraphQLCoreConverter.DEFINITION_BACKREF",
    "strawberry.resolvers.is_default_resolver",
    "strawberry.types.field.StrawberryField.is_basic_field",
    "strawberry.types.field.StrawberryField.default_resolver",
    "strawberry.types.field.StrawberryField.python_name",
)

# A completer turns a field's raw value into its JSON value, or raises to hand the value to
# graphql-core's completion.
Completer = Callable[[Any], Any]
# Directives that field collection has already applied; any other one keeps a field off the path.
_COLLECTION_DIRECTIVES = frozenset({"skip", "include"})


class Irregular(Exception):
    """The value needs graphql-core's own completion (it may be an error there)."""


def plain_attribute(field: GraphQLField) -> str | None:
    """The attribute a field reads when Strawberry resolves it by ``getattr``, else None."""
    definition: StrawberryField | None = (field.extensions or {}).get(
        GraphQLCoreConverter.DEFINITION_BACKREF
    )
    if (
        definition is None
        or field.args
        or field.resolve is None
        or not is_default_resolver(field.resolve)
        or not definition.is_basic_field
        or definition.default_resolver is not getattr
    ):
        return None
    return definition.python_name


def _non_null(inner: Completer) -> Completer:
    def complete(value: Any) -> Any:
        if value is None:
            raise Irregular
        return inner(value)

    return complete


def _nullable(inner: Completer) -> Completer:
    def complete(value: Any) -> Any:
        return None if value is None else inner(value)

    return complete


def _list_of(item: Completer) -> Completer:
    def complete(value: Any) -> Any:
        # Lists and tuples only: any other iterable is left to graphql-core's own rules.
        if value.__class__ is not list and value.__class__ is not tuple:
            raise Irregular
        return [item(each) for each in value]

    return complete


def _leaf(coerce: Callable[[Any], Any]) -> Completer:
    def complete(value: Any) -> Any:
        coerced = coerce(value)
        if coerced is None or coerced is Undefined:
            raise Irregular
        return coerced

    return complete


def plain_field_execution() -> type[DeadlineExecution]:
    """An execution context class for one schema; it remembers that schema's plain fields."""

    # Per type: field name -> (attribute, field type). Facts of the schema, kept with the class.
    attributes: dict[GraphQLObjectType, dict[str, tuple[str, GraphQLOutputType]]] = {}

    def plain_fields(object_type: GraphQLObjectType) -> dict[str, tuple[str, GraphQLOutputType]]:
        found = attributes.get(object_type)
        if found is None:
            found = {}
            for name, field in object_type.fields.items():
                attribute = plain_attribute(field)
                if attribute is not None:
                    found[name] = (attribute, field.type)
            attributes[object_type] = found
        return found

    class PlainFieldExecution(DeadlineExecution):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # (type, id of the field group) -> (the group, its completer or None). The group is
            # kept so that its id is not reused while this execution runs.
            self._completers: dict[tuple[GraphQLOutputType, int], tuple[Any, Any]] = {}
            # An extension with a ``resolve`` hook (middleware) must see every field resolve.
            manager = self.middleware_manager
            self._fast = manager is None or not manager.middlewares

        def completer(
            self, return_type: GraphQLOutputType, details: list[FieldDetails]
        ) -> Completer | None:
            """How to complete values of ``return_type`` selected by ``details``, or None."""
            if not self._fast:
                return None
            key = (return_type, id(details))
            known = self._completers.get(key)
            if known is None:
                built = (
                    None if _has_other_directives(details) else self._build(return_type, details)
                )
                known = self._completers[key] = (details, built)
            return known[1]

        def _build(
            self, return_type: GraphQLOutputType, details: list[FieldDetails]
        ) -> Completer | None:
            if isinstance(return_type, GraphQLNonNull):
                inner = self._build_nullable(return_type.of_type, details)
                return _non_null(inner) if inner is not None else None
            inner = self._build_nullable(return_type, details)
            return _nullable(inner) if inner is not None else None

        def _build_nullable(
            self, return_type: GraphQLOutputType, details: list[FieldDetails]
        ) -> Completer | None:
            if isinstance(return_type, GraphQLList):
                item = self._build(return_type.of_type, details)
                return _list_of(item) if item is not None else None
            if is_leaf_type(return_type):
                return _leaf(return_type.coerce_output_value)
            if isinstance(return_type, GraphQLObjectType):
                return self._build_object(return_type, details)
            return None  # interfaces and unions: graphql-core resolves their runtime type

        def _build_object(
            self, object_type: GraphQLObjectType, details: list[FieldDetails]
        ) -> Completer | None:
            grouped, new_defer_usages, *_ = self.collect_subfields(object_type, details)
            if new_defer_usages:
                return None
            fields = plain_fields(object_type)
            steps = []
            for response_name, sub_details in grouped.items():
                node = sub_details[0].node
                if node.name.value == "__typename":
                    steps.append((response_name, "__class__", _typename(object_type.name)))
                    continue
                entry = fields.get(node.name.value)
                if entry is None:
                    return None
                attribute, field_type = entry
                complete = self.completer(field_type, sub_details)
                if complete is None:
                    return None
                steps.append((response_name, attribute, complete))
            is_type_of = object_type.is_type_of

            def complete_object(value: Any) -> dict[str, Any]:
                if is_type_of is not None and not is_type_of(value, None):  # type: ignore[arg-type]  # Strawberry's is_type_of ignores info
                    raise Irregular
                return {name: done(getattr(value, attr)) for name, attr, done in steps}

            return complete_object

        def complete_value(
            self,
            return_type: GraphQLOutputType,
            field_details_list: list[FieldDetails],
            info: Any,
            path: Any,
            result: Any,
            position_context: Any,
        ) -> Any:
            complete = self.completer(return_type, field_details_list)
            if complete is not None and not isinstance(result, Exception):
                try:
                    return complete(result)
                except Exception:  # graphql-core completes it again below
                    pass
            return super().complete_value(
                return_type, field_details_list, info, path, result, position_context
            )

        def execute_fields(
            self,
            parent_type: GraphQLObjectType,
            source_value: Any,
            path: Any,
            grouped_field_set: dict[str, list[FieldDetails]],
            position_context: Any,
        ) -> Any:
            self.check_deadline()
            fields = plain_fields(parent_type)
            if not fields or not self._fast:
                return super().execute_fields(
                    parent_type, source_value, path, grouped_field_set, position_context
                )
            done: dict[str, Any] = {}
            rest: dict[str, list[FieldDetails]] = {}
            for response_name, details in grouped_field_set.items():
                node = details[0].node
                entry = fields.get(node.name.value)
                if entry is not None:
                    complete = self.completer(entry[1], details)
                    if complete is not None:
                        try:
                            done[response_name] = complete(getattr(source_value, entry[0]))
                            continue
                        except Exception:  # graphql-core runs the field below
                            pass
                rest[response_name] = details
            if not rest:
                return done
            executed = super().execute_fields(
                parent_type, source_value, path, rest, position_context
            )
            if not done:
                return executed
            if self.is_awaitable(executed):

                async def merged() -> dict[str, Any]:
                    return _in_order(grouped_field_set, done, await executed)

                return merged()
            return _in_order(grouped_field_set, done, executed)

    return PlainFieldExecution


def _has_other_directives(details: list[FieldDetails]) -> bool:
    """Whether a field group carries a directive other than ``@skip``/``@include`` (``@stream``)."""
    return any(
        directive.name.value not in _COLLECTION_DIRECTIVES
        for each in details
        for directive in each.node.directives or ()
    )


def _typename(name: str) -> Completer:
    return lambda _value: name


def _in_order(
    grouped_field_set: dict[str, list[FieldDetails]], done: dict[str, Any], executed: dict[str, Any]
) -> dict[str, Any]:
    """Both halves of an object's fields, in the order the query selected them."""
    return {
        name: done[name] if name in done else executed[name]
        for name in grouped_field_set
        if name in done or name in executed
    }
