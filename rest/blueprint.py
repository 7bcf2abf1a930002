"""The v1 blueprint object, shared by the route modules.

Every operation refuses query parameters it does not take (a 400 naming the parameter and, when
one is close, the parameter meant), bar ``api_key`` and the cache-buster ``_``.
"""

from collections.abc import Callable, Mapping
from difflib import get_close_matches
from typing import TYPE_CHECKING, Any, TypeVar

from flask import current_app
from flask_smorest import Blueprint  # type: ignore[import-untyped]  # ships no type hints
from marshmallow import Schema, fields

from service.errors import InvalidParameter
from web.auth import QUERY_PARAMETER
from web.context import current_request

from .parser import QueryParser

View = TypeVar("View", bound=Callable[..., Any])
# The attribute naming the query parameters a view takes (set by V1Blueprint.arguments).
QUERY_NAMES = "query_parameter_names"
ALWAYS_ALLOWED = frozenset({QUERY_PARAMETER, "_"})
# In a string field's metadata: its value is a number, or numbers separated by commas.
NUMERIC = "numeric"


def is_number(field: fields.Field[Any]) -> bool:
    """Whether a query field reads numbers (typed, or a string of them: lat, lng, bbox)."""
    return isinstance(field, fields.Integer | fields.Float) or bool(field.metadata.get(NUMERIC))


class V1Blueprint(Blueprint):  # type: ignore[misc]  # flask-smorest's Blueprint is untyped
    ARGUMENTS_PARSER = QueryParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The query parameters that are numbers, on every operation (web.routes.number_params).
        self.number_names: set[str] = set()

    def arguments(
        self, schema: Schema | type[Schema], *, location: str = "query", **kwargs: Any
    ) -> Callable[[View], View]:
        """flask-smorest's ``arguments``, also noting on the view the parameters it takes."""
        decorate = super().arguments(schema, location=location, **kwargs)
        declared = (schema if isinstance(schema, Schema) else schema()).fields
        names = frozenset(field.data_key or name for name, field in declared.items())
        self.number_names.update(
            field.data_key or name for name, field in declared.items() if is_number(field)
        )

        def declare(view: View) -> View:
            wrapped: View = decorate(view)
            setattr(wrapped, QUERY_NAMES, names)
            return wrapped

        return declare

    if TYPE_CHECKING:
        # Signatures of the flask-smorest decorators the routes use (it ships no type hints).
        def get(self, rule: str, **options: Any) -> Callable[[View], View]: ...

        def response(
            self,
            status_code: int,
            schema: Schema | type[Schema] | None = None,
            *,
            headers: Mapping[str, Any] | None = None,
            **kwargs: Any,
        ) -> Callable[[View], View]: ...

        def alt_response(
            self,
            status_code: int,
            response: Any = None,
            *,
            schema: Schema | type[Schema] | None = None,
            description: str | None = None,
            headers: Mapping[str, Any] | None = None,
            **kwargs: Any,
        ) -> Callable[[View], View]: ...


bp = V1Blueprint("api_v1", __name__, url_prefix="/api/v1", description="Cannabis data, v1")


def unknown_parameter_message(name: str, known: frozenset[str]) -> str:
    """``unknown parameter 'efect'; did you mean 'effect'?`` (or what the operation takes)."""
    close = get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if close:
        return f"unknown parameter {name!r}; did you mean {close[0]!r}?"
    if not known:
        return f"unknown parameter {name!r}; this endpoint takes no query parameters"
    return f"unknown parameter {name!r}; this endpoint takes {', '.join(sorted(known))}"


def refuse_unknown_parameters() -> None:
    """Runs after the key is checked and the request charged, before the arguments are read."""
    request_ = current_request()
    view = current_app.view_functions.get(request_.endpoint or "")
    known: frozenset[str] = getattr(view, QUERY_NAMES, frozenset())
    for name in request_.args:
        if name not in known and name not in ALWAYS_ALLOWED:
            raise InvalidParameter(unknown_parameter_message(name, known), param=name)


bp.before_request(refuse_unknown_parameters)
