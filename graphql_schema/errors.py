"""Error shaping: our errors keep message and code; anything unexpected is masked and logged.

Shaping happens once, on the finished result (see view.py), so it also covers errors raised by
schema extensions during parsing and validation, which never reach an execution-time hook.
"""

import logging
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from graphql import DocumentNode, SelectionSetNode, parse, visit
from graphql.error import GraphQLError
from graphql.language import Visitor
from strawberry.extensions import SchemaExtension

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


def shape_error(error: GraphQLError) -> GraphQLError:
    """Give ``error`` an ``extensions.code`` equal to the REST error code; mask the unexpected."""
    original = error.original_error
    if isinstance(original, ServiceError):
        extra: dict[str, Any] = {"code": original.code}
        if original.param is not None:
            extra["param"] = original.param
        return _rebuild(error, original.message, extra)
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
