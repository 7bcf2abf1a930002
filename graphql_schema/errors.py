"""Error shaping: our errors keep message and code; anything unexpected is masked and logged.

Shaping happens once, on the finished result (see view.py), so it also covers errors raised by
schema extensions during parsing and validation, which never reach an execution-time hook.
"""

import logging
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from graphql import DocumentNode, ObjectTypeDefinitionNode, SelectionSetNode, parse, visit
from graphql.error import GraphQLError
from graphql.language import Visitor
from strawberry.extensions import SchemaExtension
from strawberry.schema.base import BaseSchema
from strawberry.utils.str_converters import to_snake_case

from service.errors import UNAVAILABLE_MESSAGE, ServiceError, is_database_unavailable

log = logging.getLogger(__name__)
UNEXPECTED = "Unexpected error"
# Errors GraphQL itself reports (syntax, validation, variables, depth/alias/token limits) are
# the client's: the same code as REST's 400.
CLIENT_ERROR_CODE = 400


def _rebuild(error: GraphQLError, message: str, extensions: dict[str, Any]) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        extensions={**(error.extensions or {}), **extensions},
    )


class ArgumentNames:
    """The GraphQL names of the arguments whose service (REST) name differs: ``thc_min`` is
    ``thcMin``. Service errors name REST's parameter; a GraphQL client should read its own."""

    def __init__(self, renamed: Mapping[str, str]) -> None:
        self._renamed = dict(renamed)
        # Whole words only, and only these names: a message may quote the client's own text.
        alternatives = "|".join(map(re.escape, sorted(renamed, key=len, reverse=True)))
        self._words = re.compile(rf"\b(?:{alternatives})\b") if renamed else None

    @classmethod
    def of(cls, schema: BaseSchema) -> "ArgumentNames":
        """The renamed arguments of every field of ``schema`` (from its SDL)."""
        renamed: dict[str, str] = {}
        for definition in parse(schema.as_str()).definitions:
            if isinstance(definition, ObjectTypeDefinitionNode):
                for field in definition.fields or ():
                    for argument in field.arguments or ():
                        name = argument.name.value
                        if to_snake_case(name) != name:
                            renamed[to_snake_case(name)] = name
        return cls(renamed)

    def param(self, name: str) -> str:
        return self._renamed.get(name, name)

    def message(self, text: str) -> str:
        if self._words is None:
            return text
        return self._words.sub(lambda found: self._renamed[found.group()], text)


NO_RENAMING = ArgumentNames({})


def shape_error(error: GraphQLError, names: ArgumentNames = NO_RENAMING) -> GraphQLError:
    """Give ``error`` an ``extensions.code`` equal to the REST error code; mask the unexpected.
    A parameter error names the GraphQL argument (``names``) in ``extensions.param`` and in its
    message, which is otherwise REST's."""
    original = error.original_error
    if isinstance(original, ServiceError):
        extra: dict[str, Any] = {"code": original.code}
        if original.reason is not None:
            extra["reason"] = original.reason
        message = original.message
        if original.param is not None:
            extra["param"] = names.param(original.param)
            message = names.message(message)
        return _rebuild(error, message, extra)
    if original is None or isinstance(original, GraphQLError):
        return _rebuild(error, error.message, {"code": CLIENT_ERROR_CODE})
    if is_database_unavailable(original):
        log.warning(
            "database unavailable in GraphQL at %s: %s", error.path, type(original).__name__
        )
        return _rebuild(error, UNAVAILABLE_MESSAGE, {"code": 503})
    log.error("unexpected error in GraphQL at %s", error.path, exc_info=original)
    return _rebuild(error, UNEXPECTED, {"code": 500})


class _EmptySelections(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def enter_selection_set(self, node: SelectionSetNode, *_args: Any) -> None:
        if not node.selections:
            self.found = True


def _has_empty_selection_set(document: DocumentNode) -> bool:
    visitor = _EmptySelections()
    visit(document, visitor)
    return visitor.found


@lru_cache(maxsize=1024)
def _text_has_empty_selection_set(query: str) -> bool:
    """The same check by the document's text, remembered: clients send the same few documents
    again and again."""
    return _has_empty_selection_set(parse(query))


class RejectEmptySelectionSets(SchemaExtension):
    """Refuse ``{ }`` before the other validators (which assume at least one selection) run."""

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        if document is not None:
            # A document parsed from text is checked by that text (it parses the same again).
            empty = (
                _text_has_empty_selection_set(context.query)
                if context.query is not None
                else _has_empty_selection_set(document)
            )
            if empty:
                raise GraphQLError("Selection sets must not be empty: select at least one field")
        yield
