"""Resolvers called without Strawberry's per-call wrapper, where the wrapper has nothing to do.

Strawberry wraps every resolver in a function that builds an ``Info``, converts each argument
and runs field extensions, permissions and exception handlers. For a synchronous resolver with
none of those and only ``int``, ``float``, ``str`` or ``bool`` arguments, what is left is renaming
the arguments and passing ``info`` and the parent, which is all the function here does. Off with
``stock=True``; ``tests/accel/test_graphql_execution.py`` compares answers with the wrapper's.

Private names: Strawberry's ``Schema._schema`` (the graphql-core schema whose ``resolve``
functions are replaced), ``Info._raw_info`` and ``Info._field`` (to build an ``Info``),
``GraphQLCoreConverter.DEFINITION_BACKREF``, ``StrawberryField.base_resolver``, ``extensions``,
``permission_classes`` and ``arguments``, ``StrawberryResolver.wrapped_func``, ``is_async``,
``self_parameter``, ``root_parameter``, ``parent_parameter`` and ``info_parameter``,
``StrawberryArgument.python_name`` and ``type``, ``StrawberryOptional.of_type``, the config's
``info_class`` and ``name_converter`` (``get_graphql_name``) and ``exception_handlers``.
"""

from collections.abc import Callable
from typing import Any, cast

from graphql import GraphQLObjectType, GraphQLResolveInfo
from strawberry import Schema
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import StrawberryOptional
from strawberry.types.field import StrawberryField

from .budgets import core_schema

PRIVATE_API = (
    "strawberry.schema.schema.Schema._schema",
    "strawberry.schema.schema.Schema.exception_handlers",
    "strawberry.types.info.Info._raw_info",
    "strawberry.types.info.Info._field",
    "strawberry.schema.schema_converter.GraphQLCoreConverter.DEFINITION_BACKREF",
    "strawberry.types.field.StrawberryField.base_resolver",
    "strawberry.types.field.StrawberryField.extensions",
    "strawberry.types.field.StrawberryField.permission_classes",
    "strawberry.types.field.StrawberryField.arguments",
    "strawberry.types.fields.resolver.StrawberryResolver.wrapped_func",
    "strawberry.types.fields.resolver.StrawberryResolver.is_async",
    "strawberry.types.fields.resolver.StrawberryResolver.self_parameter",
    "strawberry.types.fields.resolver.StrawberryResolver.root_parameter",
    "strawberry.types.fields.resolver.StrawberryResolver.parent_parameter",
    "strawberry.types.fields.resolver.StrawberryResolver.info_parameter",
    "strawberry.types.arguments.StrawberryArgument.python_name",
    "strawberry.types.arguments.StrawberryArgument.type",
    "strawberry.types.base.StrawberryOptional.of_type",
    "strawberry.schema.config.StrawberryConfig.info_class",
    "strawberry.schema.config.StrawberryConfig.name_converter",
    "strawberry.schema.name_converter.NameConverter.get_graphql_name",
)
_PLAIN_ARGUMENTS = (int, float, str, bool)


def install_direct_resolvers(schema: Schema) -> list[str]:
    """Replace the wrapper of every field that qualifies; return their names (Type.field)."""
    if schema.exception_handlers:
        return []
    replaced = []
    for graphql_type in core_schema(schema).type_map.values():
        if not isinstance(graphql_type, GraphQLObjectType) or graphql_type.name.startswith("__"):
            continue
        for name, field in graphql_type.fields.items():
            definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
            if isinstance(definition, StrawberryField) and _qualifies(definition):
                field.resolve = _direct(schema, definition)
                replaced.append(f"{graphql_type.name}.{name}")
    return replaced


def _qualifies(field: StrawberryField) -> bool:
    resolver = field.base_resolver
    if resolver is None or resolver.is_async or field.extensions or field.permission_classes:
        return False
    return all(_plain(argument.type) for argument in field.arguments)


def _plain(annotation: Any) -> bool:
    if isinstance(annotation, StrawberryOptional):
        annotation = annotation.of_type
    return annotation in _PLAIN_ARGUMENTS


def _direct(schema: Schema, field: StrawberryField) -> Callable[..., Any]:
    resolver = field.base_resolver
    assert resolver is not None
    call = cast(Callable[..., Any], resolver.wrapped_func)
    info_class = schema.config.info_class
    converter = schema.config.name_converter
    names = {
        converter.get_graphql_name(argument): argument.python_name for argument in field.arguments
    }
    renamed = {graphql: python for graphql, python in names.items() if graphql != python}
    passes_self = resolver.self_parameter is not None
    parent_names = [
        parameter.name
        for parameter in (resolver.root_parameter, resolver.parent_parameter)
        if parameter is not None
    ]
    info_name = resolver.info_parameter.name if resolver.info_parameter is not None else None

    def resolve(source: Any, info: GraphQLResolveInfo[Any], **arguments: Any) -> Any:
        if renamed:
            arguments = {renamed.get(name, name): value for name, value in arguments.items()}
        if info_name is not None:
            arguments[info_name] = info_class(_raw_info=info, _field=field)
        for name in parent_names:
            arguments[name] = source
        return call(source, **arguments) if passes_self else call(**arguments)

    return resolve
