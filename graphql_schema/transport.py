"""What /graphql refuses before it runs anything, each with a 400 naming the parameter: a GraphQL
parameter given twice in a GET, one in the URL of a POST (the body is what runs), and a document
of several operations without the name of the one to run (GraphQL over HTTP). The document is
parsed through Strawberry's shared ParserCache, so the schema does not parse it again.
"""

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import orjson
from flask import Request
from graphql import DocumentNode, GraphQLError, OperationDefinitionNode, OperationType
from strawberry.extensions import ParserCache

from service.errors import InvalidParameter

from .refusals import TransportRefusal

PARAMETERS = ("query", "variables", "operationName", "extensions")
NAMES_SHOWN = 10  # operations named in a message; a longer list ends with "..."
NAME_SHOWN = 64  # characters of an unknown operationName repeated in the message

Parse = Callable[[str], DocumentNode]


def shared_parse(max_tokens: int) -> Parse:
    """The parse of the schema's ``ParserCache`` (one LRU cache per maxsize, shared by every
    instance), with the option ``MaxTokensLimiter(max_tokens)`` adds: the same cache entry."""
    return partial(ParserCache().cached_parse_document, max_tokens=max_tokens)


def refuse_unclear_request(request: Request, parse: Parse) -> None:
    """Raise InvalidParameter unless the request names one document and one operation to run."""
    if request.method == "GET":
        if "query" not in request.args and "extensions" not in request.args:
            return  # the GraphiQL page, or Strawberry's own "no query" 400
        _refuse_repeated(request)
        given: Any = request.args
    else:
        _refuse_in_url(request)
        given = _json_body(request)
        if not isinstance(given, dict):
            return  # not JSON, or a batch: Strawberry refuses these
    query, name = given.get("query"), given.get("operationName")
    if isinstance(query, str):
        refuse_unclear_operation(query, name, parse)


def refuse_non_query_over_get(query: str, name: object, parse: Parse) -> None:
    """Raise TransportRefusal (405, Allow: POST) when the operation a GET would run is not a
    query (GraphQL over HTTP: GET must not change anything)."""
    try:
        document = parse(query)
    except (GraphQLError, RecursionError):
        return  # Strawberry reports the same failure in the result's errors
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [o for o in operations if name is None or (o.name and o.name.value == name)]
    if len(chosen) == 1 and chosen[0].operation is not OperationType.QUERY:
        kind = chosen[0].operation.value
        raise TransportRefusal(
            405, f"a {kind} cannot be sent with GET; use POST", headers={"Allow": "POST"}
        )


def _refuse_repeated(request: Request) -> None:
    for name, values in request.args.lists():
        if len(values) > 1 and name in PARAMETERS:
            raise InvalidParameter(f"{name} was given more than once", param=name)


def _refuse_in_url(request: Request) -> None:
    for name in PARAMETERS:
        if name in request.args:
            raise InvalidParameter(
                f"{name} belongs in the body of a POST, not in its URL", param=name
            )


def _json_body(request: Request) -> object:
    """The body as Strawberry reads it (JSON by content type), or None."""
    if "application/json" not in request.mimetype:
        return None
    data = request.get_data(cache=True)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass  # orjson refuses some of what the stdlib reads (integers over 64 bits)
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def refuse_unclear_operation(query: str, name: object, parse: Parse) -> None:
    try:
        document = parse(query)
    except (GraphQLError, RecursionError):
        return  # Strawberry reports the same failure in the result's errors
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None and len(operations) < 2:
        return
    names = [o.name.value if o.name else "anonymous" for o in operations]
    if name is None:
        raise InvalidParameter(
            f"the document has several operations ({_listed(names)}): "
            "say which one to run in operationName",
            param="operationName",
        )
    if not isinstance(name, str):
        raise InvalidParameter("operationName must be a string", param="operationName")
    if name not in {o.name.value for o in operations if o.name}:
        shown = name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "..."
        raise InvalidParameter(
            f'the document has no operation named "{shown}" (it has {_listed(names) or "none"})',
            param="operationName",
        )


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + ", ..." if len(names) > NAMES_SHOWN else shown
