"""Resolvers called without Strawberry's per-call wrapper, where the wrapper has nothing to do.

For a field with a resolver, Strawberry gives graphql-core a function that builds an ``Info``,
converts every argument (input types, enums, custom scalars, names), runs the field's extensions
and exception handlers, then calls the resolver. When the field has no extensions, the schema no
exception handlers, the resolver is synchronous and every argument is a plain ``int``, ``float``,
``str`` or ``bool`` (optional or not), all that is left is renaming the arguments to their
Python names and passing ``info`` and the parent: the function here does only that. The
wrapper had cost about a tenth of a nested page, whose relations are resolved once per parent
(61 calls for 20 dispensaries with deals, menu and law).
"""

from collections.abc import Callable
from typing import Any

from graphql import GraphQLObjectType, GraphQLResolveInfo
from strawberry import Schema
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import StrawberryOptional
from strawberry.types.field import StrawberryField

_PLAIN_ARGUMENTS = (int, float, str, bool)


def install_direct_resolvers(schema: Schema) -> list[str]:
    """Replace the wrapper of every field that qualifies; return their names (Type.field)."""
    if schema.exception_handlers:
        return []
    replaced = []
    # The graphql-core schema Strawberry built (it offers no public handle on it).
    for graphql_type in schema._schema.type_map.values():
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
    call = resolver.wrapped_func
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

    def resolve(source: Any, info: GraphQLResolveInfo, **arguments: Any) -> Any:
        if renamed:
            arguments = {renamed.get(name, name): value for name, value in arguments.items()}
        if info_name is not None:
            arguments[info_name] = info_class(_raw_info=info, _field=field)
        for name in parent_names:
            arguments[name] = source
        return call(source, **arguments) if passes_self else call(**arguments)

    return resolve
