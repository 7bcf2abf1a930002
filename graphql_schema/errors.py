"""Error shaping: our errors keep message and code; anything unexpected is masked and logged."""

import logging
from collections.abc import Callable

from graphql.error import GraphQLError
from strawberry.extensions import MaskErrors

from service.errors import ServiceError

log = logging.getLogger(__name__)
UNEXPECTED = "Unexpected error"
# Errors GraphQL itself reports (syntax, validation, depth/alias/token limits) are client errors.
CLIENT_ERROR_CODE = 400


def _rebuild(error: GraphQLError, message: str, extensions: dict) -> GraphQLError:
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
        extra = {"code": original.code}
        if original.param is not None:
            extra["param"] = original.param
        return _rebuild(error, original.message, extra)
    if original is None:
        return _rebuild(error, error.message, {"code": CLIENT_ERROR_CODE})
    log.error("unexpected error in GraphQL resolver at %s", error.path, exc_info=original)
    return _rebuild(error, UNEXPECTED, {"code": 500})


class ShapeErrors(MaskErrors):
    """MaskErrors that rewrites every error through ``shape_error`` instead of masking all."""

    def __init__(self, shape: Callable[[GraphQLError], GraphQLError] = shape_error) -> None:
        super().__init__()
        self._shape = shape

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        return [self._shape(error) for error in errors]
